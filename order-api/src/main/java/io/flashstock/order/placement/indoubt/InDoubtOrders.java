package io.flashstock.order.placement.indoubt;

import io.flashstock.order.placement.commit.OrderRows;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.placement.core.PlacementSettings;
import io.flashstock.order.placement.gate.InDoubtEntry;
import io.flashstock.order.placement.gate.TakenStock;
import io.flashstock.order.placement.guard.DatabaseBreaker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.dao.DataAccessException;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Orders whose commit failed while the database could not be asked whether it took: the database went away
 * mid-commit. Such an order keeps its stock, since giving it back could oversell if the commit took, and is
 * looked up again every {@code flashstock.order.in-doubt.check-every} until the database answers: found, it
 * stands; absent, its stock is given back, unless the counter was loaded again since (a reload recounted the
 * item from the orders written, and adding the stock back would count it twice). Each is also recorded in
 * Redis ({@code stock:{item}:in-doubt}, {@link InDoubtEntry}) under this order-api's name, for the reconciliation,
 * so that it is given back only once, and so that another order-api settles it if this one dies first
 * ({@link AbandonedInDoubtOrders}); an order still in doubt when the service stops is left to them.
 */
@Component
public class InDoubtOrders implements SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(InDoubtOrders.class);

    private final ConcurrentLinkedQueue<PlacedOrder> pending = new ConcurrentLinkedQueue<>();
    private final TakenStock taken;
    private final InDoubtRecords records;
    private final OrderApiLiveness liveness;
    private final OrderRows rows;
    private final Duration checkEvery;
    private final Counter committed;
    private final Counter givenBack;
    private final Counter recounted;

    InDoubtOrders(TakenStock taken, InDoubtRecords records, OrderApiLiveness liveness, OrderRows rows,
                  PlacementSettings settings, MeterRegistry meters) {
        this.taken = taken;
        this.records = records;
        this.liveness = liveness;
        this.rows = rows;
        this.checkEvery = settings.inDoubt().checkEvery();
        Gauge.builder("flashstock.order.in-doubt", pending, ConcurrentLinkedQueue::size)
                .description("Orders whose commit is not yet known to have taken or not").register(meters);
        committed = settled(meters, "committed");
        givenBack = settled(meters, "given_back");
        recounted = settled(meters, "recounted");
    }

    static Counter settled(MeterRegistry meters, String result) {
        return Counter.builder("flashstock.order.in-doubt.settled")
                .description("Orders in doubt, by how they were settled").tag("result", result).register(meters);
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar tasks) {
        tasks.addFixedDelayTask(this::settle, checkEvery);
    }

    /** Holds an order whose commit outcome is unknown; it keeps its stock until it is settled. */
    public void hold(PlacedOrder order) {
        try {
            taken.holdInDoubt(order, liveness.self());
        } catch (DataAccessException e) {
            // the record guards the give-back: without it, none could be given, so the order is left as drift
            log.error("order {} of item {}: commit outcome unknown and Redis did not record it ({}); its {} units "
                    + "stay taken: reconcile the item", order.orderCode(), order.command().itemCode(), e.toString(),
                    order.command().quantity());
            return;
        }
        pending.add(order);
        log.warn("order {} of item {}: commit outcome unknown; its {} units stay taken until the database answers",
                order.orderCode(), order.command().itemCode(), order.command().quantity());
        try {
            records.list(order.command().itemCode());
        } catch (DataAccessException e) {
            log.warn("order {} of item {} in doubt: its item could not be listed ({}); should this order-api die "
                    + "before it settles the order, no other finds it: reconcile the item", order.orderCode(),
                    order.command().itemCode(), e.toString());
        }
    }

    /**
     * Settles the orders in doubt, each at most once per round. An order whose lookup fails goes to the back,
     * so that one stuck on a lock (its lost transaction still open on the server) holds up no other; the round
     * ends when the database or Redis cannot be reached at all. Synchronized, as the shutdown's last attempt
     * may meet a scheduled one.
     */
    synchronized void settle() {
        for (int left = pending.size(); left > 0; left--) {
            PlacedOrder order = pending.poll();
            if (order == null) {
                return;
            }
            try {
                settle(order);
            } catch (DataAccessException notYet) {
                pending.add(order);
                log.debug("order {} in doubt not settled yet: {}", order.orderCode(), notYet.toString());
                if (DatabaseBreaker.isUnreachable(notYet)) {
                    return;
                }
            }
        }
    }

    /**
     * A last attempt when the application context closes, before Redis and the pool are stopped; what is still
     * in doubt after it is left to the other order-apis, or to the next start of this one.
     */
    @EventListener(ContextClosedEvent.class)
    void settleBeforeShutdown() {
        try {
            settle();
        } catch (RuntimeException e) {
            log.warn("last settlement of the orders in doubt failed: {}", e.toString());
        }
        pending.forEach(order -> log.warn("order {} of item {} is still in doubt at shutdown; its {} units stay taken "
                + "until an order-api settles it, once this one's mark of life has expired", order.orderCode(),
                order.command().itemCode(), order.command().quantity()));
    }

    private void settle(PlacedOrder order) {
        var command = order.command();
        if (rows.committed(order.orderCode())) {
            taken.releaseInDoubt(order);
            committed.increment();
            log.info("order {} of item {} was committed after all: it stands", order.orderCode(), command.itemCode());
        } else if (taken.giveBackInDoubt(order)) {
            givenBack.increment();
            log.info("order {} of item {} was not committed: its {} units were given back", order.orderCode(),
                    command.itemCode(), command.quantity());
        } else {
            recounted.increment();
            log.info("order {} of item {} was not committed; the item was reloaded or reset since (or Redis lost "
                    + "its counter), so nothing was given back", order.orderCode(), command.itemCode());
        }
    }
}
