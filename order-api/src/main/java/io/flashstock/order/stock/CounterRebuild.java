package io.flashstock.order.stock;

import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.transaction.support.TransactionTemplate;

import java.util.List;

/**
 * {@link StockReload}'s rebuild itself, run under the reload lock: (1) the load epoch raised, (2) the orders
 * counted, (3) the counter loaded under the new epoch, less the holds of unused tokens.
 */
class CounterRebuild {

    // the reload's own log category, as before this step had a class of its own
    private static final Logger log = LoggerFactory.getLogger(StockReload.class);

    /** Without the token gate's beans (a slice test): no holds. */
    private static final HeldUnits NO_HOLDS = new HeldUnits() {
        @Override
        public List<String> committedAmongHolds(String itemCode) {
            return List.of();
        }

        @Override
        public Outstanding outstanding(String itemCode, long generation) {
            return Outstanding.NONE;
        }
    };

    private final StockItems items;
    private final StockCounters counters;
    private final TransactionTemplate fence;
    private final StockSettings settings;
    private final ObjectProvider<HeldUnits> heldUnits;

    CounterRebuild(StockItems items, StockCounters counters, TransactionTemplate fence, StockSettings settings,
                   ObjectProvider<HeldUnits> heldUnits) {
        this.items = items;
        this.counters = counters;
        this.fence = fence;
        this.settings = settings;
        this.heldUnits = heldUnits;
    }

    void rebuild(String itemCode) {
        var item = fence.execute(status -> items.fence(itemCode)).orElseThrow(() ->
                new RefusedException(Refusal.UNKNOWN_ITEM, "item " + itemCode + " has no baseline to reload from"));
        if (item.gate() == Gate.DB_LOCK) {
            // sold by its row lock: no counter may remain in Redis, and the raise fenced out any order taken from one
            counters.unload(itemCode, item.generation(), item.loadEpoch());
            return;
        }
        // before the load: no take may sell from the new counter to a key whose first answer Redis lost
        counters.markKeysLost(itemCode, settings.idempotencyTtl());
        // a fresh read after the fence committed: it sees every order that can still commit for this generation
        var totals = items.totals(itemCode, item.generation());
        long remaining = item.baseline() - totals.quantity();
        if (remaining < 0) {
            log.error("item {} generation {} is oversold by {} units: {} ordered of {}", itemCode, item.generation(),
                    -remaining, totals.quantity(), item.baseline());
        }
        if (item.perUserLimit() != null) {
            counters.loadBought(itemCode, item.loadEpoch(), items.boughtPerUser(itemCode, item.generation()),
                    settings.perUserTtl());
        }
        // the token gate's holds are subtracted by the load step itself, atomically: the old counter may issue
        // tokens until then. Asked after the fence, the database names every hold that is an order of this count
        List<String> committedHolds = item.gate() == Gate.TOKEN
                ? heldUnits.getIfAvailable(() -> NO_HOLDS).committedAmongHolds(itemCode) : List.of();
        if (!counters.load(itemCode, remaining, item.generation(), item.perUserLimit(), item.loadEpoch(),
                item.gate(), committedHolds)) {
            log.info("reload of {} (epoch {}): Redis holds a later load already", itemCode, item.loadEpoch());
            return;
        }
        log.info("stock of {} reloaded: {} left of {} (generation {}, {} orders, load epoch {}){}", itemCode,
                remaining, item.baseline(), item.generation(), totals.count(), item.loadEpoch(),
                item.gate() == Gate.TOKEN ? ", less the units of unused tokens" : "");
    }
}
