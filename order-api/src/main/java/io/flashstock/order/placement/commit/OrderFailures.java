package io.flashstock.order.placement.commit;

import io.flashstock.order.placement.guard.DatabaseBreaker;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import org.springframework.dao.DataAccessException;
import org.springframework.transaction.TransactionException;

/** How an order the database did not write, or did not confirm, is answered, the same at every gate. */
public final class OrderFailures {

    private OrderFailures() {
    }

    /** The answer to an order the database did not write: 503 when the database failed, else a bug. */
    public static RuntimeException failure(Throwable cause, String detail) {
        if (cause instanceof DataAccessException || cause instanceof TransactionException
                || DatabaseBreaker.isUnreachable(cause)) {
            return new RefusedException(Refusal.DATABASE_UNAVAILABLE, detail, cause);
        }
        return new IllegalStateException("order not written", cause);
    }

    /**
     * The order may or may not stand: not an outage (a client that took it for one might buy again), but an
     * answer to retry with the same {@code Idempotency-Key}, which will tell.
     */
    public static RefusedException outcomeUnknown(String orderCode, String detail,
                                                  CheckedCommit.OutcomeUnknown unknown) {
        return new RefusedException(Refusal.ORDER_OUTCOME_UNKNOWN, detail, unknown.getCause())
                .with("orderCode", orderCode);
    }
}
