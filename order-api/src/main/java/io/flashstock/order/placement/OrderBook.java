package io.flashstock.order.placement;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.order.config.Utc;
import io.flashstock.order.outbox.Outbox;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;

import java.util.function.Supplier;

/**
 * Writes orders with their outbox rows, for both gates. Transactions are driven by hand because the caller
 * must know which way one failed: before the commit nothing was written; a failed commit may still have
 * committed, so the database is asked before anyone gives stock back or answers that the order failed.
 */
@Component
class OrderBook {

    private static final String INSERT_ORDER = """
            INSERT INTO purchase_order (order_code, event_id, item_code, generation, user_id, quantity, remaining,
                                        idempotency_key, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""";

    private final JdbcClient jdbc;
    private final Outbox outbox;
    private final PlatformTransactionManager transactions;

    OrderBook(JdbcClient jdbc, Outbox outbox, PlatformTransactionManager transactions) {
        this.jdbc = jdbc;
        this.outbox = outbox;
        this.transactions = transactions;
    }

    /** Writes an order the Redis gate let through, with its outbox row, in a transaction of its own. */
    void write(PlacedOrder order, OutboxStatus outboxStatus) {
        inTransaction(order.orderCode(), () -> {
            insert(order, outboxStatus);
            return null;
        });
    }

    /** Inserts the order and its outbox row; only inside {@link #inTransaction}. */
    void insert(PlacedOrder order, OutboxStatus outboxStatus) {
        var command = order.command();
        jdbc.sql(INSERT_ORDER).params(order.orderCode(), order.eventId().toString(), command.itemCode(),
                order.generation(), command.userId(), command.quantity(), order.remaining(),
                command.idempotencyKey(), Utc.toColumn(order.createdAt())).update();
        outbox.append(order.event(), outboxStatus);
    }

    /**
     * Runs {@code work}, which writes at most the order {@code orderCode}, in one transaction and commits it.
     * After a commit that failed, the result stands only if that order is found committed.
     *
     * @throws NotWritten when the order is certainly not in the database (its stock must be given back)
     * @throws OutcomeUnknown when the commit failed and the database could not be asked whether it took
     */
    <T> T inTransaction(String orderCode, Supplier<T> work) {
        TransactionStatus transaction = null;
        T result;
        try {
            transaction = transactions.getTransaction(TransactionDefinition.withDefaults());
            result = work.get();
        } catch (RuntimeException e) {
            rollback(transaction, e);
            throw new NotWritten(e);
        }
        try {
            transactions.commit(transaction);
        } catch (RuntimeException commitFailure) {
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
     * A commit can fail after the server applied it (the connection broke before the reply); the row is
     * looked up on a fresh connection. Present: the order stands. Absent: nothing was written.
     */
    private void confirmCommitted(String orderCode, RuntimeException commitFailure) {
        boolean committed;
        try {
            committed = contains(orderCode);
        } catch (RuntimeException lookupFailure) {
            commitFailure.addSuppressed(lookupFailure);
            throw new OutcomeUnknown(commitFailure);
        }
        if (!committed) {
            throw new NotWritten(commitFailure);
        }
    }

    private void rollback(TransactionStatus transaction, RuntimeException cause) {
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

    /** The commit failed and whether it took effect could not be found out. */
    static final class OutcomeUnknown extends RuntimeException {
        OutcomeUnknown(Throwable cause) {
            super("order commit outcome unknown: " + cause.getMessage(), cause, false, false);
        }
    }
}
