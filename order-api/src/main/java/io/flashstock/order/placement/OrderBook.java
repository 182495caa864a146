package io.flashstock.order.placement;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockEvent;
import io.flashstock.order.config.OrderSettings;
import io.flashstock.order.config.Utc;
import io.flashstock.order.outbox.Outbox;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Writes orders with their outbox rows, for both gates. Transactions are driven by hand because the caller
 * must know which way one failed: before the commit nothing was written; a failed commit may still have
 * committed, so the database is asked before anyone gives stock back or answers that the order failed.
 * <p>
 * The Redis gate's orders are group-committed: a request queues its order and, if one of the writer slots is
 * free, writes everything queued so far as one transaction (batched inserts, one commit) on its own thread;
 * otherwise it waits until a writer has written its order. Each request still returns only after its own
 * rows committed, nothing waits to fill a batch, and a batch that fails is retried order by order, so one
 * order's problem cannot fail another; but a batch that could not reach the database fails whole, since
 * each retry would only wait out the pool's timeout again. These writes go through the {@link DatabaseBreaker},
 * and each transaction writes only the orders the {@link LoadFence} admits.
 */
@Component
class OrderBook {

    private static final Logger log = LoggerFactory.getLogger(OrderBook.class);

    private static final String INSERT_ORDER = """
            INSERT INTO purchase_order (order_code, event_id, item_code, generation, user_id, quantity, remaining,
                                        idempotency_key, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""";

    /**
     * A waiting request is woken when its order is written, or, at the head of the queue, when a writer slot
     * frees; it re-checks this seldom on its own, only as a safety net: a short period made every waiter wake
     * hundreds of times a second under load.
     */
    private static final long HANDOFF_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final JdbcClient jdbc;
    /** For batched inserts, which JdbcClient does not offer; the driver rewrites them into one multi-row insert. */
    private final JdbcTemplate batches;
    private final Outbox outbox;
    private final LoadFence fence;
    private final PlatformTransactionManager transactions;
    private final OrderSettings.GroupCommit groupCommit;
    private final ConcurrentLinkedQueue<Queued> queue = new ConcurrentLinkedQueue<>();
    private final Semaphore writerSlots;
    private final DistributionSummary batchSizes;
    private final DatabaseBreaker breaker;

    OrderBook(JdbcClient jdbc, JdbcTemplate batches, Outbox outbox, LoadFence fence,
              PlatformTransactionManager transactions, OrderSettings settings, MeterRegistry meters,
              DatabaseBreaker breaker) {
        this.jdbc = jdbc;
        this.batches = batches;
        this.outbox = outbox;
        this.fence = fence;
        this.transactions = transactions;
        this.groupCommit = settings.groupCommit();
        this.writerSlots = new Semaphore(groupCommit.writers());
        this.batchSizes = DistributionSummary.builder("flashstock.order.batch.size")
                .description("Orders written by one group-committed transaction").register(meters);
        this.breaker = breaker;
    }

    /**
     * Writes an order the Redis gate let through, with its outbox row; returns once it is committed.
     *
     * @throws Fenced when its item's counter was rebuilt since the order took its stock: nothing was written
     */
    void write(PlacedOrder order, OutboxStatus outboxStatus) {
        Queued mine = new Queued(order, outboxStatus);
        if (groupCommit.writers() == 0) {
            writeAlone(mine);
            if (mine.failure != null) {
                throw mine.failure;
            }
            return;
        }
        queue.add(mine);
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
        if (mine.failure != null) {
            throw mine.failure;
        }
    }

    /** Inserts the order and its outbox row; only inside {@link #inTransaction}. */
    void insert(PlacedOrder order, OutboxStatus outboxStatus) {
        insertAll(List.of(order), List.of(outboxStatus));
    }

    private void insertAll(List<PlacedOrder> orders, List<OutboxStatus> statuses) {
        List<Object[]> rows = new ArrayList<>(orders.size());
        List<StockEvent> events = new ArrayList<>(orders.size());
        for (PlacedOrder order : orders) {
            var command = order.command();
            rows.add(new Object[]{order.orderCode(), order.eventId().toString(), command.itemCode(),
                    order.generation(), command.userId(), command.quantity(), order.remaining(),
                    command.idempotencyKey(), Utc.toColumn(order.createdAt())});
            events.add(order.event());
        }
        batches.batchUpdate(INSERT_ORDER, rows);
        outbox.appendAll(events, statuses);
    }

    private List<Queued> drainQueue() {
        List<Queued> batch = new ArrayList<>();
        Queued next;
        while (batch.size() < groupCommit.maxBatch() && (next = queue.poll()) != null) {
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
            var fenced = commit(batch);
            batch.forEach(q -> q.finish(fenced.contains(q.order.orderCode()) ? new Fenced(q.order) : null));
        } catch (NotWritten notWritten) {
            if (batch.size() == 1 || DatabaseBreaker.isUnreachable(notWritten)) {
                batch.forEach(q -> q.finish(notWritten));
            } else {
                batch.forEach(this::writeAlone);
            }
        } catch (OutcomeUnknown unknown) {
            // the commit failed and could not be confirmed: all of the batch or none of it is in
            batch.forEach(q -> q.finish(unknown));
        } finally {
            IllegalStateException abandoned = new IllegalStateException("order batch ended without an outcome");
            batch.stream().filter(q -> !q.done).forEach(q -> q.finish(new OutcomeUnknown(abandoned)));
        }
    }

    private void writeAlone(Queued queued) {
        try {
            queued.finish(commit(List.of(queued)).isEmpty() ? null : new Fenced(queued.order));
        } catch (NotWritten | OutcomeUnknown e) {
            queued.finish(e);
        }
    }

    /**
     * Writes orders of the Redis gate in one transaction, through the breaker: the ones the fence admits. One
     * written order stands for the batch when a failed commit is checked: all of them or none is in.
     *
     * @return the codes of the orders the fence refused, of which nothing was written
     */
    private Set<String> commit(List<Queued> batch) {
        try {
            return breaker.write(() -> inTransaction(refused -> batch.stream().map(q -> q.order.orderCode())
                    .filter(code -> !refused.contains(code)).findFirst().orElse(null), () -> {
                Set<String> refused = fence.refused(batch.stream().map(Queued::order).toList());
                var admitted = batch.stream().filter(q -> !refused.contains(q.order.orderCode())).toList();
                if (!admitted.isEmpty()) {
                    insertAll(admitted.stream().map(Queued::order).toList(),
                            admitted.stream().map(Queued::status).toList());
                }
                return refused;
            }));
        } catch (CallNotPermittedException unreachable) {
            throw new NotWritten(unreachable);
        }
    }

    /** An order waiting to be written, and the request thread waiting for it. */
    private static final class Queued {
        private final PlacedOrder order;
        private final OutboxStatus status;
        private final Thread waiter = Thread.currentThread();
        private RuntimeException failure;
        private volatile boolean taken;
        private volatile boolean done;

        Queued(PlacedOrder order, OutboxStatus status) {
            this.order = order;
            this.status = status;
        }

        PlacedOrder order() {
            return order;
        }

        OutboxStatus status() {
            return status;
        }

        /** Sets the outcome (null: committed) before {@code done}, whose volatile write publishes it. */
        void finish(RuntimeException outcome) {
            failure = outcome;
            done = true;
            LockSupport.unpark(waiter);
        }
    }

    /**
     * Runs {@code work}, which writes at most the order {@code orderCode}, in one transaction and commits it.
     * After a commit that failed, the result stands only if that order is found committed.
     *
     * @throws NotWritten when the order is certainly not in the database (its stock must be given back)
     * @throws OutcomeUnknown when the commit failed and the database could not be asked whether it took
     */
    <T> T inTransaction(String orderCode, Supplier<T> work) {
        return inTransaction(result -> orderCode, work);
    }

    /**
     * Like {@link #inTransaction(String, Supplier)}, for work that names the order it wrote by its result
     * ({@code witness} gives its code, or null when it wrote none). Whatever {@code work} throws, an
     * {@link Error} too, rolls the transaction back and unbinds it from the thread: a transaction left bound
     * would be joined by the thread's next one, whose commit would then commit nothing.
     */
    private <T> T inTransaction(Function<T, String> witness, Supplier<T> work) {
        TransactionStatus transaction = null;
        T result;
        try {
            transaction = transactions.getTransaction(TransactionDefinition.withDefaults());
            result = work.get();
        } catch (RuntimeException | Error e) {
            rollback(transaction, e);
            if (e instanceof Error error) {
                throw error;
            }
            throw new NotWritten(e);
        }
        try {
            transactions.commit(transaction);
        } catch (RuntimeException commitFailure) {
            String orderCode = witness.apply(result);
            if (orderCode == null) {
                throw new NotWritten(commitFailure);
            }
            confirmCommitted(orderCode, commitFailure);
        }
        return result;
    }

    /** Whether an order with this code was committed. */
    boolean contains(String orderCode) {
        return jdbc.sql("SELECT COUNT(*) FROM purchase_order WHERE order_code = ?").param(orderCode)
                .query(Long.class).single() > 0;
    }

    /**
     * Whether the order was committed, for an order whose commit failed: a locking read, which waits for a
     * transaction still writing that order (its commit may still be running on a connection the client lost)
     * instead of reading past it, so an answer of absent is final.
     */
    boolean committed(String orderCode) {
        return !jdbc.sql("SELECT order_code FROM purchase_order WHERE order_code = ? FOR UPDATE").param(orderCode)
                .query(String.class).list().isEmpty();
    }

    /**
     * A commit can fail after the server applied it (the connection broke before the reply); the row is
     * looked up on a fresh connection. Present: the order stands. Absent: nothing was written.
     */
    private void confirmCommitted(String orderCode, RuntimeException commitFailure) {
        boolean committed;
        try {
            committed = committed(orderCode);
        } catch (RuntimeException lookupFailure) {
            commitFailure.addSuppressed(lookupFailure);
            throw new OutcomeUnknown(commitFailure);
        }
        if (!committed) {
            throw new NotWritten(commitFailure);
        }
    }

    private void rollback(TransactionStatus transaction, Throwable cause) {
        if (transaction != null && !transaction.isCompleted()) {
            try {
                transactions.rollback(transaction);
            } catch (RuntimeException rollbackFailure) {
                // the server discards an uncommitted transaction when its connection goes away
                cause.addSuppressed(rollbackFailure);
            }
        }
    }

    /** The order and its outbox row are certainly not in the database. */
    static final class NotWritten extends RuntimeException {
        NotWritten(Throwable cause) {
            super("order not written: " + cause.getMessage(), cause, false, false);
        }
    }

    /**
     * The order's item had its counter rebuilt since the order took its stock (a reload or reset raised its
     * load epoch): the rebuild counted without it, so it was not written, and its stock is in no count.
     */
    static final class Fenced extends RuntimeException {
        Fenced(PlacedOrder order) {
            super("order " + order.orderCode() + " not written: the counter of " + order.command().itemCode()
                    + " was rebuilt since load " + order.loadEpoch(), null, false, false);
        }
    }

    /** The commit failed and whether it took effect could not be found out. */
    static final class OutcomeUnknown extends RuntimeException {
        OutcomeUnknown(Throwable cause) {
            super("order commit outcome unknown: " + cause.getMessage(), cause, false, false);
        }
    }
}
