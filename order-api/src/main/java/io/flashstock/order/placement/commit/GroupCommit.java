package io.flashstock.order.placement.commit;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.placement.core.PlacementSettings;
import io.flashstock.order.placement.guard.DatabaseBreaker;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Group commit of the Redis gate's orders: a request queues its order and, if one of the writer slots is free,
 * writes everything queued so far as one transaction on its own thread; otherwise it waits until a writer has
 * written its order. Each request returns only after its own rows committed, and nothing waits to fill a
 * batch. A batch that fails is retried order by order, so one order's problem cannot fail another; but a
 * batch that could not reach the database fails whole, since each retry would only wait out the pool's
 * timeout again.
 */
@Component
public class GroupCommit {

    private static final Logger log = LoggerFactory.getLogger(GroupCommit.class);

    /**
     * A waiting request is woken when its order is written, or, at the head of the queue, when a writer slot
     * frees; it re-checks this seldom on its own, only as a safety net: a short period made every waiter wake
     * hundreds of times a second under load.
     */
    private static final long HANDOFF_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final BatchWriter database;
    private final int writers;
    private final int maxBatch;
    private final ConcurrentLinkedQueue<Queued> queue = new ConcurrentLinkedQueue<>();
    private final Semaphore writerSlots;
    private final DistributionSummary batchSizes;
    private final Timer writes;

    @Autowired
    public GroupCommit(BatchWriter database, PlacementSettings settings, MeterRegistry meters) {
        this(database, settings.groupCommit(), meters);
    }

    GroupCommit(BatchWriter database, PlacementSettings.GroupCommit settings, MeterRegistry meters) {
        this.database = database;
        this.writers = settings.writers();
        this.maxBatch = settings.maxBatch();
        this.writerSlots = new Semaphore(writers);
        this.batchSizes = DistributionSummary.builder("flashstock.order.batch.size")
                .description("Orders written by one group-committed transaction").register(meters);
        this.writes = Timer.builder("flashstock.order.db")
                .description("The transaction writing the order and its outbox row").register(meters);
        Gauge.builder("flashstock.order.queue", queue, ConcurrentLinkedQueue::size)
                .description("Orders waiting for a group-committed transaction").register(meters);
    }

    /**
     * Writes the order with its outbox row; returns once it is committed.
     *
     * @throws Fenced when its item's counter was rebuilt since the order took its stock: nothing was written
     * @throws CheckedCommit.NotWritten when it was not written
     * @throws CheckedCommit.OutcomeUnknown when whether it was written could not be found out
     */
    public void write(PlacedOrder order, OutboxStatus status) {
        // timed as flashstock.order.db, the wait for a writer included, whether it commits or throws
        writes.record(() -> writeQueued(order, status));
    }

    private void writeQueued(PlacedOrder order, OutboxStatus status) {
        Queued mine = new Queued(new PendingOrder(order, status));
        if (writers == 0) {
            writeAlone(mine);
        } else {
            queue.add(mine);
            awaitOrWrite(mine);
        }
        if (mine.failure != null) {
            throw mine.failure;
        }
    }

    /** Orders queued and not yet taken by a writer. */
    int queued() {
        return queue.size();
    }

    private void awaitOrWrite(Queued mine) {
        while (!mine.done) {
            // once a writer has taken this order, only its outcome is awaited: trying the slots again
            // would spin on an empty queue until that writer's commit returns
            if (!mine.taken && writerSlots.tryAcquire()) {
                try {
                    writeBatch(drainQueue());
                } catch (Error error) {
                    // the batch's orders, this request's included, are finished as outcome unknown (held in
                    // doubt, then settled); rethrowing here would leave this request's own order unsettled
                    log.error("an Error ended an order batch; its orders are held in doubt", error);
                } finally {
                    writerSlots.release();
                    // a request that found every slot taken may be parked: wake the next in line
                    Queued next = queue.peek();
                    if (next != null) {
                        LockSupport.unpark(next.waiter);
                    }
                }
            } else {
                LockSupport.parkNanos(this, HANDOFF_CHECK_NANOS);
            }
        }
    }

    private List<Queued> drainQueue() {
        List<Queued> batch = new ArrayList<>();
        Queued next;
        while (batch.size() < maxBatch && (next = queue.poll()) != null) {
            next.taken = true;
            batch.add(next);
        }
        return batch;
    }

    /** Writes a batch in one transaction; every order of it is finished, whatever happens. */
    private void writeBatch(List<Queued> batch) {
        if (batch.isEmpty()) {
            return;
        }
        batchSizes.record(batch.size());
        try {
            Set<String> fenced = database.write(batch.stream().map(q -> q.pending).toList());
            batch.forEach(q -> q.finish(fenced.contains(q.pending.orderCode()) ? new Fenced(q.pending.order()) : null));
        } catch (CheckedCommit.NotWritten notWritten) {
            if (batch.size() == 1 || DatabaseBreaker.isUnreachable(notWritten)) {
                batch.forEach(q -> q.finish(notWritten));
            } else {
                batch.forEach(this::writeAlone);
            }
        } catch (CheckedCommit.OutcomeUnknown unknown) {
            // the commit failed and could not be confirmed: all of the batch or none of it is in
            batch.forEach(q -> q.finish(unknown));
        } finally {
            IllegalStateException abandoned = new IllegalStateException("order batch ended without an outcome");
            batch.stream().filter(q -> !q.done).forEach(q -> q.finish(new CheckedCommit.OutcomeUnknown(abandoned)));
        }
    }

    private void writeAlone(Queued queued) {
        try {
            queued.finish(database.write(List.of(queued.pending)).isEmpty() ? null : new Fenced(queued.pending.order()));
        } catch (CheckedCommit.NotWritten | CheckedCommit.OutcomeUnknown e) {
            queued.finish(e);
        }
    }

    /** An order waiting to be written, and the request thread waiting for it. */
    private static final class Queued {
        private final PendingOrder pending;
        private final Thread waiter = Thread.currentThread();
        private RuntimeException failure;
        private volatile boolean taken;
        private volatile boolean done;

        Queued(PendingOrder pending) {
            this.pending = pending;
        }

        /** Sets the outcome (null: committed) before {@code done}, whose volatile write publishes it. */
        void finish(RuntimeException outcome) {
            failure = outcome;
            done = true;
            LockSupport.unpark(waiter);
        }
    }

    /**
     * The order's item had its counter rebuilt since the order took its stock (a reload or reset raised its
     * load epoch): the rebuild counted without it, so it was not written, and its stock is in no count.
     */
    public static final class Fenced extends RuntimeException {
        Fenced(PlacedOrder order) {
            super("order " + order.orderCode() + " not written: the counter of " + order.command().itemCode()
                    + " was rebuilt since load " + order.loadEpoch(), null, false, false);
        }
    }
}
