package io.flashstock.order.stock;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockReset;
import io.flashstock.order.config.OrderSettings;
import io.flashstock.order.outbox.Outbox;
import io.flashstock.order.web.ProblemException;
import io.flashstock.order.web.ProblemType;
import io.flashstock.warmup.WarmupProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
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
    private final Outbox outbox;
    private final TransactionTemplate transaction;
    private final Clock clock;
    private final OrderSettings settings;
    private final String warmupItemCode;

    StockAdministration(StockItems items, StockCounters counters, Outbox outbox, TransactionTemplate transaction,
                        Clock clock, OrderSettings settings, WarmupProperties warmup) {
        this.items = items;
        this.counters = counters;
        this.outbox = outbox;
        this.transaction = transaction;
        this.clock = clock;
        this.settings = settings;
        this.warmupItemCode = warmup.itemCode();
    }

    /**
     * Records the new baseline and a {@link StockReset} outbox row in one transaction (the stock database
     * follows through Kafka), then sets Redis. Orders of the old generation still in flight are recorded
     * with their generation, which the consumer recognises as stale.
     */
    ItemView reset(String itemCode, long quantity, Integer perUserLimit) {
        if (itemCode.equals(warmupItemCode)) {
            throw new ProblemException(ProblemType.RESERVED_ITEM, "item " + itemCode + " is the warm-up's item");
        }
        var eventId = uuids.generate();
        Instant now = clock.instant();
        long generation = transaction.execute(status -> {
            long next = items.reset(itemCode, quantity, perUserLimit, eventId, now);
            outbox.append(new StockReset(eventId, itemCode, quantity, perUserLimit, next, now), OutboxStatus.NEW);
            return next;
        });
        try {
            if (!counters.load(itemCode, quantity, generation, perUserLimit)) {
                log.info("reset of {} to generation {}: Redis already holds a newer generation", itemCode, generation);
            }
        } catch (ProblemException redisDown) {
            throw new ProblemException(ProblemType.REDIS_UNAVAILABLE, "the baseline of generation " + generation
                    + " is recorded but Redis was not set; reload the item when Redis is back", redisDown.getCause());
        }
        log.info("stock of {} set to {} (generation {}, per-user limit {})", itemCode, quantity, generation,
                perUserLimit);
        return view(itemCode);
    }

    ItemView view(String itemCode) {
        var item = items.find(itemCode);
        var redis = counters.read(itemCode);
        if (item.isEmpty() && redis.remaining() == null) {
            throw new ProblemException(ProblemType.UNKNOWN_ITEM, "no stock is set for item " + itemCode);
        }
        Long generation = item.map(StockItems.StockItem::generation).orElse(redis.generation());
        var totals = generation == null ? new StockItems.OrderTotals(0, 0, null) : items.totals(itemCode, generation);
        Long baseline = item.map(StockItems.StockItem::baseline).orElse(null);
        Long expected = baseline == null ? null : baseline - totals.quantity();
        Long drift = expected == null || redis.remaining() == null ? null : expected - redis.remaining();
        return new ItemView(itemCode, item.map(StockItems.StockItem::generation).orElse(null), baseline,
                item.map(StockItems.StockItem::perUserLimit).orElse(null), redis.remaining(), redis.generation(),
                totals.count(), totals.quantity(), expected, drift);
    }

    /**
     * Rebuilds the counter as baseline − orders of the current generation, with generation, limit and
     * per-user counts: the repair after Redis lost its data or drifted. Refused while orders still arrive,
     * since an order between the sum and the write would be counted neither way.
     */
    ItemView reload(String itemCode) {
        var item = items.find(itemCode).orElseThrow(() -> new ProblemException(ProblemType.UNKNOWN_ITEM,
                "item " + itemCode + " has no baseline to reload from"));
        var totals = items.totals(itemCode, item.generation());
        Duration quiet = settings.reloadQuietPeriod();
        if (totals.newest() != null && totals.newest().isAfter(clock.instant().minus(quiet))) {
            throw new ProblemException(ProblemType.ORDERS_IN_FLIGHT, "item " + itemCode + " took an order at "
                    + totals.newest() + "; reload once it has taken none for " + quiet)
                    .with("retryAfterSeconds", Math.max(1, quiet.toSeconds()));
        }
        if (item.perUserLimit() != null) {
            counters.loadBought(itemCode, item.generation(), items.boughtPerUser(itemCode, item.generation()),
                    settings.perUserTtl());
        }
        long remaining = Math.max(0, item.baseline() - totals.quantity());
        if (!counters.load(itemCode, remaining, item.generation(), item.perUserLimit())) {
            log.warn("reload of {}: Redis holds a newer generation than the database's {}", itemCode, item.generation());
        }
        log.info("stock of {} reloaded: {} left of {} (generation {}, {} orders)", itemCode, remaining,
                item.baseline(), item.generation(), totals.count());
        return view(itemCode);
    }
}
