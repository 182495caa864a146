package io.flashstock.order.stock;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockReset;
import io.flashstock.order.outbox.Outbox;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.warmup.WarmupProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Setting an item's stock, looking at it, and rebuilding its Redis keys from the database. The database
 * is the record (baseline and orders); Redis is the gate derived from it.
 */
@Service
class StockAdministration {

    private static final Logger log = LoggerFactory.getLogger(StockAdministration.class);

    private final TimeBasedEpochGenerator uuids = Generators.timeBasedEpochGenerator();
    private final StockItems items;
    private final StockCounters counters;
    private final StockReload reloads;
    private final Outbox outbox;
    private final TransactionTemplate fence;
    private final Clock clock;
    private final String warmupItemCode;
    private final ObjectProvider<HeldUnits> heldUnits;
    private final Duration keysLifetime;

    StockAdministration(StockItems items, StockCounters counters, StockReload reloads, Outbox outbox,
                        PlatformTransactionManager transactions, Clock clock, StockSettings settings,
                        WarmupProperties warmup, ObjectProvider<HeldUnits> heldUnits) {
        this.heldUnits = heldUnits;
        this.items = items;
        this.counters = counters;
        this.reloads = reloads;
        this.outbox = outbox;
        this.fence = StockReload.fencing(transactions, settings);
        this.clock = clock;
        this.warmupItemCode = warmup.itemCode();
        this.keysLifetime = settings.idempotencyTtl();
    }

    /**
     * Records the new baseline and gate and a {@link StockReset} outbox row in one transaction (the stock
     * database follows through Kafka, whichever the gate), then sets Redis: the counter of a Redis item, or,
     * for a DB-lock item, no counter, so the Redis gate cannot sell it. The transaction raises the item's load
     * epoch: it waits for the orders of the old generation still being written (they stand, in that generation),
     * and refuses the ones taken from the old counter later, even if loading Redis fails (the engine then heals
     * the counter from the new baseline).
     */
    ItemView reset(String itemCode, long quantity, Integer perUserLimit, Gate gate) {
        if (itemCode.equals(warmupItemCode)) {
            throw new RefusedException(Refusal.RESERVED_ITEM, "item " + itemCode + " is the warm-up's item");
        }
        var eventId = uuids.generate();
        Instant now = clock.instant();
        var item = fence.execute(status -> {
            var next = items.reset(itemCode, quantity, perUserLimit, gate, eventId, now);
            outbox.append(new StockReset(eventId, itemCode, quantity, perUserLimit, next.generation(), now),
                    OutboxStatus.NEW);
            return next;
        });
        long generation = item.generation();
        try {
            if (gate != Gate.DB_LOCK && generation > 1) {
                // the earlier sales' keys, if Redis lost them: a rebuild would mark them, but a reset loads first
                counters.markKeysLost(itemCode, keysLifetime);
            }
            boolean applied = gate == Gate.DB_LOCK ? counters.unload(itemCode, generation, item.loadEpoch())
                    : counters.load(itemCode, quantity, generation, perUserLimit, item.loadEpoch(), gate);
            if (!applied) {
                log.info("reset of {} to generation {}: Redis holds a later load already", itemCode, generation);
            }
        } catch (RefusedException redisDown) {
            String repair = gate == Gate.DB_LOCK
                    ? "its old Redis counter may remain; repeat the reset when Redis is back"
                    : "Redis was not set; the engine loads it once Redis is back (until then nothing is sold)";
            throw new RefusedException(Refusal.REDIS_UNAVAILABLE, "the baseline of generation " + generation
                    + " is recorded but " + repair, redisDown.getCause());
        }
        log.info("stock of {} set to {} (generation {}, per-user limit {}, gate {})", itemCode, quantity, generation,
                perUserLimit, gate.code());
        return view(itemCode);
    }

    ItemView view(String itemCode) {
        var item = items.find(itemCode);
        var redis = counters.read(itemCode);
        if (item.isEmpty() && redis.remaining() == null) {
            throw new RefusedException(Refusal.UNKNOWN_ITEM, "no stock is set for item " + itemCode);
        }
        Long generation = item.map(StockItems.StockItem::generation).orElse(redis.generation());
        var totals = generation == null ? new StockItems.OrderTotals(0, 0, null) : items.totals(itemCode, generation);
        Long baseline = item.map(StockItems.StockItem::baseline).orElse(null);
        Long expected = baseline == null ? null : baseline - totals.quantity();
        Gate gate = item.map(StockItems.StockItem::gate).orElse(null);
        Long dbRemaining = item.map(StockItems.StockItem::dbRemaining).orElse(null);
        Long gateRemaining = gate == Gate.DB_LOCK ? dbRemaining : redis.remaining();
        // a token item's counter is lower by the units its unused tokens hold: no drift
        HeldUnits holds = gate == Gate.TOKEN && generation != null ? heldUnits.getIfAvailable() : null;
        Long held = holds == null ? null : holds.outstanding(itemCode, generation).units();
        Long drift = expected == null || gateRemaining == null ? null
                : expected - (held == null ? 0 : held) - gateRemaining;
        return new ItemView(itemCode, gate, item.map(StockItems.StockItem::generation).orElse(null), baseline,
                item.map(StockItems.StockItem::perUserLimit).orElse(null), redis.remaining(), redis.generation(),
                dbRemaining, totals.count(), totals.quantity(), expected, drift, held);
    }

    /**
     * Rebuilds the counter as baseline − orders of the current generation, with generation, limit and
     * per-user counts: the repair after Redis lost its data or drifted. Safe while orders arrive: it is fenced
     * against the orders taken from the old counter ({@link StockReload}). Refused for a DB-lock item, whose
     * only counter is its {@code stock_item} row.
     */
    ItemView reload(String itemCode) {
        var item = items.find(itemCode).orElseThrow(() -> new RefusedException(Refusal.UNKNOWN_ITEM,
                "item " + itemCode + " has no baseline to reload from"));
        if (item.gate() == Gate.DB_LOCK) {
            throw new RefusedException(Refusal.WRONG_GATE, "item " + itemCode + " is counted in the database "
                    + "(gate db-lock), not in Redis: there is nothing to reload").with("gate", item.gate().code());
        }
        reloads.reload(itemCode);
        return view(itemCode);
    }
}
