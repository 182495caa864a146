package io.flashstock.relay.web;

import org.springframework.http.HttpStatus;

import java.net.URI;

/**
 * Every problem the relay answers with: its HTTP status, its title and its stable {@code code} (the same codes
 * as order-api's for the same problems), which clients may rely on.
 */
public enum ProblemType implements io.flashstock.web.problem.ProblemType {
    INVALID_REQUEST(HttpStatus.BAD_REQUEST, "Invalid request"),
    ADMIN_UNAUTHORIZED(HttpStatus.UNAUTHORIZED, "Admin token missing or wrong"),
    ADMIN_DISABLED(HttpStatus.FORBIDDEN, "Admin endpoints are disabled"),
    NOT_FOUND(HttpStatus.NOT_FOUND, "Not found"),
    METHOD_NOT_ALLOWED(HttpStatus.METHOD_NOT_ALLOWED, "Method not allowed"),
    NOT_ACCEPTABLE(HttpStatus.NOT_ACCEPTABLE, "Not acceptable"),
    UNSUPPORTED_MEDIA_TYPE(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "Unsupported media type"),
    INTERNAL_ERROR(HttpStatus.INTERNAL_SERVER_ERROR, "Internal error"),
    DATABASE_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "Database unavailable");

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

    /** The problem for a status that Spring raised without a more specific one. */
    static ProblemType forStatus(int status) {
        return switch (status) {
            case 400 -> INVALID_REQUEST;
            case 401 -> ADMIN_UNAUTHORIZED;
            case 403 -> ADMIN_DISABLED;
            case 404 -> NOT_FOUND;
            case 405 -> METHOD_NOT_ALLOWED;
            case 406 -> NOT_ACCEPTABLE;
            case 415 -> UNSUPPORTED_MEDIA_TYPE;
            case 503 -> DATABASE_UNAVAILABLE;
            default -> status >= 400 && status < 500 ? INVALID_REQUEST : INTERNAL_ERROR;
        };
    }
}
