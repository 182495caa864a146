package io.flashstock.order.web;

import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import org.springframework.http.ProblemDetail;

/**
 * The one place a {@link Refusal} becomes an HTTP answer: its {@link ProblemType} (status, title, {@code code}), for
 * the refusals the controllers return and those {@link ProblemAdvice} catches thrown.
 */
public final class RefusalProblems {

    private RefusalProblems() {
    }

    /** A refusal the controller answers itself; it adds its properties. */
    public static ProblemDetail detail(Refusal refusal, String detail) {
        return Problems.detail(type(refusal), detail);
    }

    /** A thrown refusal as the problem answered: its detail, cause, properties and wait kept. */
    static ProblemException problem(RefusedException refused) {
        var problem = new ProblemException(type(refused.refusal()), refused.getMessage(), refused.getCause());
        refused.properties().forEach(problem::with);
        if (refused.retryAfter() != null) {
            problem.retryAfter(refused.retryAfter());
        }
        return problem;
    }

    /** Exhaustive, so that a new refusal does not compile until it has its answer. */
    static ProblemType type(Refusal refusal) {
        return switch (refusal) {
            case UNKNOWN_ITEM -> ProblemType.UNKNOWN_ITEM;
            case SOLD_OUT -> ProblemType.SOLD_OUT;
            case PER_USER_LIMIT_REACHED -> ProblemType.PER_USER_LIMIT_REACHED;
            case WRONG_GATE -> ProblemType.WRONG_GATE;
            case IDEMPOTENCY_IN_PROGRESS -> ProblemType.IDEMPOTENCY_IN_PROGRESS;
            case IDEMPOTENCY_KEY_REUSED -> ProblemType.IDEMPOTENCY_KEY_REUSED;
            case RESERVED_ITEM -> ProblemType.RESERVED_ITEM;
            case UNKNOWN_TICKET -> ProblemType.UNKNOWN_TICKET;
            case ALREADY_QUEUED -> ProblemType.ALREADY_QUEUED;
            case NOT_ADMITTED -> ProblemType.NOT_ADMITTED;
            case ADMISSION_EXPIRED -> ProblemType.ADMISSION_EXPIRED;
            case TICKET_MISMATCH -> ProblemType.TICKET_MISMATCH;
            case QUEUE_FULL -> ProblemType.QUEUE_FULL;
            case HOLDS_FULL -> ProblemType.HOLDS_FULL;
            case RATE_LIMITED -> ProblemType.RATE_LIMITED;
            case STOCK_RELOADING -> ProblemType.STOCK_RELOADING;
            case TOKEN_INVALID -> ProblemType.TOKEN_INVALID;
            case TOKEN_EXPIRED -> ProblemType.TOKEN_EXPIRED;
            case TOKEN_MISMATCH -> ProblemType.TOKEN_MISMATCH;
            case TOKEN_IN_USE -> ProblemType.TOKEN_IN_USE;
            case TOKEN_RELEASED -> ProblemType.TOKEN_RELEASED;
            case TOKEN_VOID -> ProblemType.TOKEN_VOID;
            case TOKEN_GATE_DISABLED -> ProblemType.TOKEN_GATE_DISABLED;
            case REDIS_UNAVAILABLE -> ProblemType.REDIS_UNAVAILABLE;
            case DATABASE_UNAVAILABLE -> ProblemType.DATABASE_UNAVAILABLE;
            case ORDER_OUTCOME_UNKNOWN -> ProblemType.ORDER_OUTCOME_UNKNOWN;
            case RECONCILIATION_SOURCE_UNAVAILABLE -> ProblemType.RECONCILIATION_SOURCE_UNAVAILABLE;
        };
    }
}
