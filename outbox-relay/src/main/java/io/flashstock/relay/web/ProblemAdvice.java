package io.flashstock.relay.web;

import io.flashstock.admin.AdminAccessDenied;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Turns every error raised in Spring MVC into RFC 9457 {@code application/problem+json} with a stable
 * {@code code}, as order-api does.
 */
@RestControllerAdvice
class ProblemAdvice extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemAdvice.class);
    /** Seconds before a retry after a 503; the pool gives up on a connection after its timeout anyway. */
    private static final String RETRY_AFTER_SECONDS = "5";

    @ExceptionHandler(ProblemException.class)
    ResponseEntity<ProblemDetail> problem(ProblemException ex) {
        return answer(detail(ex.type(), ex.getMessage()), new HttpHeaders());
    }

    /** The admin token guard's refusals ({@code io.flashstock.admin}): its problem and headers, answered as ours. */
    @ExceptionHandler(AdminAccessDenied.class)
    ResponseEntity<ProblemDetail> adminAccessDenied(AdminAccessDenied ex) {
        return answer(ex.getBody(), ex.getHeaders());
    }

    @ExceptionHandler(DataAccessException.class)
    ResponseEntity<ProblemDetail> database(DataAccessException ex) {
        log.warn("DATABASE_UNAVAILABLE: {}", ex.getMostSpecificCause().toString());
        return answer(detail(ProblemType.DATABASE_UNAVAILABLE, "the orders database did not answer"), new HttpHeaders());
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> unexpected(Exception ex) {
        log.error("unexpected error", ex);
        return answer(detail(ProblemType.INTERNAL_ERROR, "unexpected error; see the service log"), new HttpHeaders());
    }

    /** Spring's own errors (405, 404, 406, ...): its problem, with our type, title and code. */
    @Override
    protected ResponseEntity<Object> handleExceptionInternal(Exception ex, Object body, HttpHeaders headers,
                                                             HttpStatusCode statusCode, WebRequest request) {
        ProblemDetail problem = body instanceof ProblemDetail detail ? detail
                : ProblemDetail.forStatusAndDetail(statusCode, ex.getMessage());
        describe(problem, ProblemType.forStatus(statusCode.value()));
        ResponseEntity<ProblemDetail> answer = answer(problem, headers);
        return new ResponseEntity<>(answer.getBody(), answer.getHeaders(), answer.getStatusCode());
    }

    private static ProblemDetail detail(ProblemType type, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(type.status(), detail);
        describe(problem, type);
        return problem;
    }

    private static void describe(ProblemDetail problem, ProblemType type) {
        problem.setType(type.type());
        problem.setTitle(type.title());
        problem.setProperty("code", type.code());
    }

    /** The content type is set, not negotiated, so even a client whose Accept caused a 406 gets problem+json. */
    private static ResponseEntity<ProblemDetail> answer(ProblemDetail problem, HttpHeaders headers) {
        var response = ResponseEntity.status(problem.getStatus()).headers(headers)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (problem.getStatus() == ProblemType.DATABASE_UNAVAILABLE.status().value()) {
            response.header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS);
        }
        return response.body(problem);
    }
}
