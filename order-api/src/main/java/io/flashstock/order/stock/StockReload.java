package io.flashstock.order.stock;

import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.core.task.TaskExecutor;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Rebuilds an item's Redis counter from the database, fenced against the orders taken from the counter it
 * replaces: (1) the item's load epoch is raised in the database, which waits for every order transaction that
 * read the old epoch and refuses the ones that come later (see {@link StockItems#fence}); (2) the orders are
 * counted, every one that can still commit among them; (3) the counter is loaded under the new epoch, and takes
 * from it may commit. Between (1) and (3) the old counter may still take stock, for orders that cannot be
 * written; their stock is in no count, and the load replaces the counter they took it from.
 * <p>
 * One order-api at a time rebuilds an item (a lock in Redis); two that did so at once would still be safe,
 * since each rebuild fences the other's orders and Redis keeps the later epoch. The engine heals an item by
 * itself when the gate finds its counter missing, loaded in an earlier life of Redis, or behind the database's
 * epoch (a rebuild that died before its load); the operator's reload is the same rebuild. For an item whose
 * gate is the database, the rebuild removes a counter left in Redis (a reset to that gate whose Redis step
 * failed, or a stale copy of Redis), so the Redis gate answers that it is sold elsewhere.
 * <p>
 * This class decides when an item is rebuilt and holds its lock; the rebuild's steps are {@link CounterRebuild}.
 */
@Component
public class StockReload {

    private static final Logger log = LoggerFactory.getLogger(StockReload.class);

    private final StockItems items;
    private final StockCounters counters;
    private final CounterRebuild counterRebuild;
    private final StockSettings settings;
    private final TaskExecutor executor;
    private final Set<String> healing = ConcurrentHashMap.newKeySet();
    private final Counter rebuilt;
    private final Counter healed;

    StockReload(StockItems items, StockCounters counters, PlatformTransactionManager transactions,
                StockSettings settings, @Qualifier("applicationTaskExecutor") TaskExecutor executor,
                MeterRegistry meters, ObjectProvider<HeldUnits> heldUnits) {
        this.items = items;
        this.counters = counters;
        this.counterRebuild = new CounterRebuild(items, counters, fencing(transactions, settings), settings, heldUnits);
        this.settings = settings;
        this.executor = executor;
        this.rebuilt = Counter.builder("flashstock.stock.reloads").tag("trigger", "operator")
                .description("Rebuilds of an item's Redis counter from the database").register(meters);
        this.healed = Counter.builder("flashstock.stock.reloads").tag("trigger", "engine")
                .description("Rebuilds of an item's Redis counter from the database").register(meters);
    }

    /** A transaction bounded by the fence timeout: it may wait for order transactions holding the item's row. */
    static TransactionTemplate fencing(PlatformTransactionManager transactions, StockSettings settings) {
        var template = new TransactionTemplate(transactions);
        template.setTimeout(Math.toIntExact(Math.max(1, settings.reload().fenceTimeout().toSeconds())));
        return template;
    }

    /**
     * The operator's reload of a Redis item's counter.
     *
     * @throws RefusedException {@code STOCK_RELOADING} while another order-api rebuilds the item
     */
    void reload(String itemCode) {
        String token = counters.lockReload(itemCode, settings.reload().lockTtl()).orElseThrow(() ->
                new RefusedException(Refusal.STOCK_RELOADING, "item " + itemCode + " is being reloaded"));
        try {
            counterRebuild.rebuild(itemCode);
            rebuilt.increment();
        } finally {
            counters.unlockReload(itemCode, token);
        }
    }

    /**
     * Rebuilds the item's counter in the background if the gate cannot sell from it; returns at once. Each
     * order-api heals an item once at a time, and the reload lock makes it once across order-apis.
     */
    public void heal(String itemCode) {
        if (!healing.add(itemCode)) {
            return;
        }
        try {
            executor.execute(() -> {
                try {
                    healNow(itemCode);
                } finally {
                    healing.remove(itemCode);
                }
            });
        } catch (TaskRejectedException e) {
            healing.remove(itemCode);
            log.warn("could not start healing the counter of {}: {}", itemCode, e.toString());
        }
    }

    /**
     * Rebuilds the item's counter now, whatever it holds: for units the engine knows are in no count (taken by an
     * attempt abandoned before its commit). The raise of the load epoch also fences out any late write of that
     * attempt.
     *
     * @return whether it was rebuilt; false while another rebuild holds the item, or when the rebuild failed
     */
    public boolean recountNow(String itemCode) {
        try {
            return rebuildLocked(itemCode, item -> true);
        } catch (RuntimeException e) {
            log.warn("could not recount the counter of {}: {}", itemCode, e.toString());
            return false;
        }
    }

    private void healNow(String itemCode) {
        try {
            rebuildLocked(itemCode, this::untrusted);
        } catch (RuntimeException e) {
            log.warn("could not heal the counter of {} (the next order that finds it untrusted tries again): {}",
                    itemCode, e.toString());
        }
    }

    /**
     * Rebuilds the item's counter under the reload lock, if {@code needed} still says so once the lock is held.
     *
     * @return whether it was rebuilt; false while another rebuild holds the item, or when it was not needed
     */
    private boolean rebuildLocked(String itemCode, Predicate<String> needed) {
        var token = counters.lockReload(itemCode, settings.reload().lockTtl());
        if (token.isEmpty()) {
            return false;
        }
        try {
            if (!needed.test(itemCode)) {
                return false;
            }
            counterRebuild.rebuild(itemCode);
            healed.increment();
            return true;
        } finally {
            counters.unlockReload(itemCode, token.get());
        }
    }

    /** Whether the gate cannot sell from the item's counter; another order-api may have rebuilt it since it asked. */
    private boolean untrusted(String itemCode) {
        var item = items.find(itemCode);
        return item.isPresent() && (item.get().gate() == Gate.DB_LOCK
                || counters.trustedLoad(itemCode).orElse(-1) != item.get().loadEpoch());
    }
}
