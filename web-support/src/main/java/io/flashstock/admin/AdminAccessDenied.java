package io.flashstock.admin;

import io.flashstock.web.problem.ProblemType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * A refused admin request, carrying its whole RFC 9457 answer: status, {@code type}, {@code title}, {@code detail},
 * {@code code} and, for a 401, {@code WWW-Authenticate: Bearer}. The {@code type} URNs and the codes are order-api's
 * {@code ProblemType} {@code ADMIN_DISABLED} and {@code ADMIN_UNAUTHORIZED}, which clients of every service rely on.
 * Spring's own problem handling answers it as it is; a service with its own problem advice answers it from
 * {@link #getBody()} and {@link #getHeaders()}.
 */
public class AdminAccessDenied extends ErrorResponseException {

    private static final String DISABLED = "ADMIN_DISABLED";
    private static final String UNAUTHORIZED = "ADMIN_UNAUTHORIZED";

    private AdminAccessDenied(HttpStatus status, String code, String title, String detail) {
        super(status, problem(status, code, title, detail), null);
    }

    static AdminAccessDenied disabled() {
        return new AdminAccessDenied(HttpStatus.FORBIDDEN, DISABLED, "Admin endpoints are disabled",
                "no admin token is configured (set STOCK_ADMIN_TOKEN)");
    }

    static AdminAccessDenied unauthorized() {
        var denied = new AdminAccessDenied(HttpStatus.UNAUTHORIZED, UNAUTHORIZED, "Admin token missing or wrong",
                "send Authorization: Bearer <admin token>");
        denied.getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
        return denied;
    }

    /** The problem's stable {@code code}. */
    public String code() {
        return (String) getBody().getProperties().get("code");
    }

    private static ProblemDetail problem(HttpStatus status, String code, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(ProblemType.urn(code));
        problem.setTitle(title);
        problem.setProperty("code", code);
        return problem;
    }
}
