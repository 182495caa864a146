package io.flashstock.order.placement.indoubt;

import io.flashstock.order.placement.core.PlacementSettings;
import io.flashstock.order.placement.gate.InDoubtEntry;
import io.flashstock.order.stock.StockItems;
import io.flashstock.order.stock.StockReload;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Settles the orders in doubt that no live order-api holds: those of an order-api that died (or stopped) before the
 * database answered, which its {@link InDoubtOrders} can no longer settle. From start-up and then every
 * {@code flashstock.order.in-doubt.check-every}, it looks at the items listed with orders in doubt
 * ({@link InDoubtRecords}; every {@value #SWEEP_EVERY_ROUNDS}th round, every item sold through Redis that has any)
 * and, under the item's lock, so that one order-api at a time settles an item's, takes an entry for abandoned once
 * it is older than {@code abandoned-after} and the mark of life of the order-api holding it has expired
 * ({@link OrderApiLiveness}). It is then settled as its own order-api would have ({@link AbandonedOrderSettlement}).
 * Entries this version cannot read (an older one's) are settled by recounting the item. On a thread of its own, as a
 * lookup may wait for the database.
 */
@Component
class AbandonedInDoubtOrders implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(AbandonedInDoubtOrders.class);
    /** How often, in rounds, every item sold through Redis is looked at, listed or not: 10 s at the default. */
    static final int SWEEP_EVERY_ROUNDS = 10;

    private final InDoubtRecords records;
    private final StockItems stockItems;
    private final OrderApiLiveness liveness;
    private final StockReload reloads;
    private final AbandonedOrderSettlement settlement;
    private final Duration every;
    private final Duration abandonedAfter;
    private long rounds;
    private ScheduledExecutorService settler;

    AbandonedInDoubtOrders(InDoubtRecords records, StockItems stockItems, OrderApiLiveness liveness,
                           StockReload reloads, AbandonedOrderSettlement settlement, PlacementSettings settings) {
        this.records = records;
        this.stockItems = stockItems;
        this.liveness = liveness;
        this.reloads = reloads;
        this.settlement = settlement;
        this.every = settings.inDoubt().checkEvery();
        this.abandonedAfter = settings.inDoubt().abandonedAfter();
    }

    /**
     * One round over the items listed with orders in doubt. A lookup that fails leaves its order to the next round;
     * the round ends when the database cannot be reached at all, or Redis fails.
     */
    void settle() {
        for (String item : itemsToLookAt()) {
            try {
                settle(item);
            } catch (DataAccessException unreachable) {
                log.debug("orders in doubt of item {} not settled yet: {}", item, unreachable.toString());
                return;
            }
        }
    }

    /**
     * The items listed with orders in doubt; every {@value #SWEEP_EVERY_ROUNDS}th round (and the first) also every
     * item the database sells through Redis that has any. The list is one key of all items: on a Redis Cluster it
     * lives on one shard, whose outage hides it, and a replica promoted without its last {@code SADD} forgets an
     * item; the entries themselves live beside the item's counter.
     */
    private Collection<String> itemsToLookAt() {
        if (rounds++ % SWEEP_EVERY_ROUNDS != 0) {
            return records.items();
        }
        var items = new LinkedHashSet<String>();
        try {
            items.addAll(records.items());
        } catch (DataAccessException listUnreadable) {
            log.debug("the items with orders in doubt could not be listed: {}", listUnreadable.toString());
        }
        for (String item : stockItems.countedInRedis()) {
            try {
                if (!items.contains(item) && records.anyEntries(item)) {
                    items.add(item);
                }
            } catch (DataAccessException unreachable) {
                log.debug("orders in doubt of item {} not looked up: {}", item, unreachable.toString());
            }
        }
        return items;
    }

    private void settle(String item) {
        Optional<String> lock = records.lock(item, abandonedAfter);
        if (lock.isEmpty()) {
            return;
        }
        try {
            var entries = records.entries(item);
            if (entries.none()) {
                records.unlist(item);
                return;
            }
            if (!entries.unreadable().isEmpty()) {
                recount(item, entries);
                return;
            }
            long now = records.nowMillis();
            Map<String, Boolean> live = new HashMap<>();
            for (InDoubtEntry entry : entries.readable()) {
                if (abandoned(entry, now, live)) {
                    settlement.settle(entry);
                }
            }
        } finally {
            records.unlock(item, lock.get());
        }
    }

    /** Held by another order-api, long enough ago, and that order-api has not marked itself alive since. */
    private boolean abandoned(InDoubtEntry entry, long now, Map<String, Boolean> live) {
        return !entry.owner().equals(liveness.self()) && now - entry.heldAtMillis() >= abandonedAfter.toMillis()
                && !live.computeIfAbsent(entry.owner(), liveness::isLive);
    }

    /** Entries of another version: what they hold is not known here, but a recount settles every entry at once. */
    private void recount(String item, InDoubtRecords.Entries entries) {
        if (reloads.recountNow(item)) {
            log.info("orders {} of item {} in doubt were recorded by another version of order-api: the item was "
                    + "recounted from the orders written", entries.unreadable(), item);
        }
    }

    @Override
    public synchronized void start() {
        settler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            var thread = new Thread(runnable, "in-doubt-successor");
            thread.setDaemon(true);
            return thread;
        });
        settler.scheduleWithFixedDelay(this::settleQuietly, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void settleQuietly() {
        try {
            settle();
        } catch (RuntimeException e) {
            log.warn("settling the orders in doubt of order-apis that are gone failed (tried again in {}): {}", every,
                    e.toString());
        }
    }

    @Override
    public synchronized void stop() {
        if (settler != null) {
            settler.shutdownNow();
            settler = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return settler != null;
    }
}
