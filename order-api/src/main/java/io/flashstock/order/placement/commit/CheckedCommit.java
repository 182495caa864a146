package io.flashstock.order.placement.commit;

import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;

import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Runs an order's transaction and says which way it failed, for both gates. Driven by hand because the caller
 * must know: before the commit nothing was written ({@link NotWritten}); a failed commit may still have
 * committed, so the database is asked before anyone gives stock back or answers that the order failed
 * ({@link OutcomeUnknown} when it cannot be asked).
 */
@Component
public class CheckedCommit {

    private final PlatformTransactionManager transactions;
    private final OrderRows rows;

    public CheckedCommit(PlatformTransactionManager transactions, OrderRows rows) {
        this.transactions = transactions;
        this.rows = rows;
    }

    /**
     * Runs {@code work}, which writes at most the order {@code orderCode}, in one transaction and commits it.
     * After a commit that failed, the result stands only if that order is found committed.
     *
     * @throws NotWritten when the order is certainly not in the database (its stock must be given back)
     * @throws OutcomeUnknown when the commit failed and the database could not be asked whether it took
     */
    public <T> T inTransaction(String orderCode, Supplier<T> work) {
        return inTransaction(result -> orderCode, work);
    }

    /**
     * Like {@link #inTransaction(String, Supplier)}, for work that names an order it wrote by its result
     * ({@code witness} gives its code, or null when it wrote none); that order stands for all it wrote. Whatever
     * {@code work} throws, an {@link Error} too, rolls the transaction back and unbinds it from the thread: a
     * transaction left bound would be joined by the thread's next one, whose commit would then commit nothing.
     */
    <T> T inTransaction(Function<T, String> witness, Supplier<T> work) {
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

    /**
     * A commit can fail after the server applied it (the connection broke before the reply); the row is
     * looked up on a fresh connection. Present: the order stands. Absent: nothing was written.
     */
    private void confirmCommitted(String orderCode, RuntimeException commitFailure) {
        boolean committed;
        try {
            committed = rows.committed(orderCode);
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
    public static final class NotWritten extends RuntimeException {
        public NotWritten(Throwable cause) {
            super("order not written: " + cause.getMessage(), cause, false, false);
        }
    }

    /** The commit failed and whether it took effect could not be found out. */
    public static final class OutcomeUnknown extends RuntimeException {
        public OutcomeUnknown(Throwable cause) {
            super("order commit outcome unknown: " + cause.getMessage(), cause, false, false);
        }
    }
}
