package io.flashstock.order.refusal;

/**
 * Why the engine said no to a request, in the domain's words: the refusals it makes by design (sold out, a limit,
 * a bound, a token or ticket that does not hold) and the answers it cannot give now (Redis or the database down, an
 * outcome unknown). Use cases and adapters say no with one of these, returned ({@code Outcome.Refused}) or thrown
 * ({@link RefusedException}); only the web layer knows which HTTP answer each one is. The names are the stable
 * {@code code}s clients see, and the Lua scripts' {@code REFUSED} replies name them too.
 */
public enum Refusal {
    UNKNOWN_ITEM,
    SOLD_OUT,
    PER_USER_LIMIT_REACHED,
    WRONG_GATE,
    IDEMPOTENCY_IN_PROGRESS,
    IDEMPOTENCY_KEY_REUSED,
    RESERVED_ITEM,
    UNKNOWN_TICKET,
    ALREADY_QUEUED,
    NOT_ADMITTED,
    ADMISSION_EXPIRED,
    TICKET_MISMATCH,
    QUEUE_FULL,
    HOLDS_FULL,
    RATE_LIMITED,
    STOCK_RELOADING,
    TOKEN_INVALID,
    TOKEN_EXPIRED,
    TOKEN_MISMATCH,
    TOKEN_IN_USE,
    TOKEN_RELEASED,
    TOKEN_VOID,
    TOKEN_GATE_DISABLED,
    REDIS_UNAVAILABLE,
    DATABASE_UNAVAILABLE,
    ORDER_OUTCOME_UNKNOWN,
    RECONCILIATION_SOURCE_UNAVAILABLE
}
