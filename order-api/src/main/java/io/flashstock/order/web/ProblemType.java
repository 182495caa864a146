package io.flashstock.order.web;

import org.springframework.http.HttpStatus;

import java.net.URI;

/**
 * Every problem this service answers with: its HTTP status, its title and its stable {@code code}, which
 * clients may rely on (titles and details are for people and may change).
 */
public enum ProblemType implements io.flashstock.web.problem.ProblemType {
    INVALID_REQUEST(HttpStatus.BAD_REQUEST, "Invalid request"),
    MALFORMED_JSON(HttpStatus.BAD_REQUEST, "Malformed JSON"),
    ADMIN_UNAUTHORIZED(HttpStatus.UNAUTHORIZED, "Admin token missing or wrong"),
    ADMIN_DISABLED(HttpStatus.FORBIDDEN, "Admin endpoints are disabled"),
    UNKNOWN_ITEM(HttpStatus.NOT_FOUND, "Unknown item"),
    NOT_FOUND(HttpStatus.NOT_FOUND, "Not found"),
    METHOD_NOT_ALLOWED(HttpStatus.METHOD_NOT_ALLOWED, "Method not allowed"),
    NOT_ACCEPTABLE(HttpStatus.NOT_ACCEPTABLE, "Not acceptable"),
    SOLD_OUT(HttpStatus.CONFLICT, "Sold out"),
    PER_USER_LIMIT_REACHED(HttpStatus.CONFLICT, "Per-user limit reached"),
    WRONG_GATE(HttpStatus.CONFLICT, "The item is sold through the other gate"),
    IDEMPOTENCY_IN_PROGRESS(HttpStatus.CONFLICT, "First request with this Idempotency-Key still in progress"),
    IDEMPOTENCY_KEY_REUSED(HttpStatus.UNPROCESSABLE_CONTENT, "Idempotency-Key already used for a different order"),
    RESERVED_ITEM(HttpStatus.CONFLICT, "Item code reserved for the warm-up"),
    UNKNOWN_TICKET(HttpStatus.NOT_FOUND, "Unknown waiting-room ticket"),
    ALREADY_QUEUED(HttpStatus.CONFLICT, "The user holds a ticket for this item already"),
    NOT_ADMITTED(HttpStatus.CONFLICT, "The ticket is not admitted yet"),
    ADMISSION_EXPIRED(HttpStatus.CONFLICT, "The ticket's admission has ended"),
    TICKET_MISMATCH(HttpStatus.UNPROCESSABLE_CONTENT, "The order does not match its ticket"),
    // the bounds of hoarding: refusals by design, 4xx so that they page nobody and eject no instance from a balancer;
    // 429 with Retry-After, which clients and proxies know to mean "not now, later"
    QUEUE_FULL(HttpStatus.TOO_MANY_REQUESTS, "The item's waiting room is full"),
    HOLDS_FULL(HttpStatus.TOO_MANY_REQUESTS, "Too many purchase tokens of the item are outstanding"),
    RATE_LIMITED(HttpStatus.TOO_MANY_REQUESTS, "Too many requests from this client address"),
    BODY_TOO_LARGE(HttpStatus.CONTENT_TOO_LARGE, "Request body too large"),
    UNSUPPORTED_MEDIA_TYPE(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "Unsupported media type"),
    INTERNAL_ERROR(HttpStatus.INTERNAL_SERVER_ERROR, "Internal error"),
    REDIS_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "Redis unavailable"),
    DATABASE_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "Database unavailable"),
    ORDER_OUTCOME_UNKNOWN(HttpStatus.SERVICE_UNAVAILABLE, "Order outcome unknown: retry with the same Idempotency-Key"),
    STOCK_RELOADING(HttpStatus.SERVICE_UNAVAILABLE, "Stock being reloaded"),
    OVERLOADED(HttpStatus.SERVICE_UNAVAILABLE, "Too many orders in flight"),
    // the token gate (io.flashstock.order.token)
    TOKEN_INVALID(HttpStatus.UNAUTHORIZED, "Purchase token invalid"),
    TOKEN_EXPIRED(HttpStatus.UNAUTHORIZED, "Purchase token expired"),
    TOKEN_MISMATCH(HttpStatus.FORBIDDEN, "The order is not the one the purchase token is for"),
    TOKEN_IN_USE(HttpStatus.CONFLICT, "An order with this purchase token is still being written"),
    TOKEN_RELEASED(HttpStatus.GONE, "The purchase token's units came back to the stock"),
    TOKEN_VOID(HttpStatus.GONE, "The purchase token belongs to a stock that was reset"),
    TOKEN_GATE_DISABLED(HttpStatus.SERVICE_UNAVAILABLE, "Purchase tokens are not configured"),
    RECONCILIATION_SOURCE_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "A source of the reconciliation is unavailable"),
    SERVICE_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "Service unavailable");

    private final HttpStatus status;
    private final String title;
    private final URI type;

    ProblemType(HttpStatus status, String title) {
        this.status = status;
        this.title = title;
        this.type = io.flashstock.web.problem.ProblemType.urn(name());
    }

    @Override
    public HttpStatus status() {
        return status;
    }

    @Override
    public String title() {
        return title;
    }

    @Override
    public URI type() {
        return type;
    }

    @Override
    public String code() {
        return name();
    }

    /** The generic problem for a status that Spring or the container raised without a more specific one. */
    public static ProblemType forStatus(int status) {
        return switch (status) {
            case 400 -> INVALID_REQUEST;
            case 401 -> ADMIN_UNAUTHORIZED;
            case 403 -> ADMIN_DISABLED;
            case 404 -> NOT_FOUND;
            case 405 -> METHOD_NOT_ALLOWED;
            case 406 -> NOT_ACCEPTABLE;
            case 413 -> BODY_TOO_LARGE;
            case 415 -> UNSUPPORTED_MEDIA_TYPE;
            case 503 -> SERVICE_UNAVAILABLE;
            default -> status >= 400 && status < 500 ? INVALID_REQUEST : INTERNAL_ERROR;
        };
    }
}
