package io.flashstock.web.problem;

import io.flashstock.admin.AdminAccessDenied;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Turns every error raised in Spring MVC into RFC 9457 {@code application/problem+json} with a stable {@code code}:
 * a {@link ProblemException}, the admin token guard's refusals, Spring's own errors (405, 404, 406, ...) and the
 * unexpected. A service's {@code @RestControllerAdvice} extends it with its own problem list and errors.
 */
public abstract class ProblemAdvice extends ResponseEntityExceptionHandler {

    private final Logger log = LoggerFactory.getLogger(getClass());
    private final String unavailableRetryAfterSeconds;

    /** @param unavailableRetryAfterSeconds the {@code Retry-After} of every 503 that does not carry its own */
    protected ProblemAdvice(String unavailableRetryAfterSeconds) {
        this.unavailableRetryAfterSeconds = unavailableRetryAfterSeconds;
    }

    /** The service's generic problem for a status raised without a more specific one (404, 500, ...). */
    protected abstract ProblemType problemForStatus(int status);

    /** Called with every problem answered, before it is sent; nothing by default. */
    protected void answering(ProblemDetail problem, WebRequest request) {
    }

    @ExceptionHandler(ProblemException.class)
    public ResponseEntity<ProblemDetail> problem(ProblemException ex, WebRequest request) {
        ProblemDetail problem = ProblemAnswers.detail(ex.type(), ex.getMessage());
        ex.properties().forEach(problem::setProperty);
        var headers = new HttpHeaders();
        if (ex.retryAfterSeconds() != null) {
            headers.set(HttpHeaders.RETRY_AFTER, ex.retryAfterSeconds().toString());
        }
        if (ex.type().status().is5xxServerError()) {
            log.warn("{}: {}{}", ex.type().code(), ex.getMessage(),
                    ex.getCause() == null ? "" : " (" + ex.getCause() + ")");
        }
        answering(problem, request);
        return answer(problem, headers);
    }

    /** The admin token guard's refusals ({@code io.flashstock.admin}): its problem and headers, answered as ours. */
    @ExceptionHandler(AdminAccessDenied.class)
    public ResponseEntity<ProblemDetail> adminAccessDenied(AdminAccessDenied ex, WebRequest request) {
        answering(ex.getBody(), request);
        return answer(ex.getBody(), ex.getHeaders());
    }

    @ExceptionHandler(Exception.class)
    public ResponseEntity<ProblemDetail> unexpected(Exception ex) {
        log.error("unexpected error", ex);
        return answer(ProblemAnswers.detail(problemForStatus(HttpStatus.INTERNAL_SERVER_ERROR.value()),
                "unexpected error; see the service log"), new HttpHeaders());
    }

    /** Spring's own errors: its problem, with our type, title and code unless it has a code already. */
    @Override
    protected ResponseEntity<Object> handleExceptionInternal(Exception ex, Object body, HttpHeaders headers,
                                                             HttpStatusCode statusCode, WebRequest request) {
        ProblemDetail problem = body instanceof ProblemDetail detail ? detail
                : ProblemDetail.forStatusAndDetail(statusCode, ex.getMessage());
        if (problem.getProperties() == null || !problem.getProperties().containsKey("code")) {
            ProblemAnswers.describe(problem, problemForStatus(statusCode.value()));
        }
        answering(problem, request);
        ResponseEntity<ProblemDetail> answer = answer(problem, headers);
        return new ResponseEntity<>(answer.getBody(), answer.getHeaders(), answer.getStatusCode());
    }

    protected final ResponseEntity<ProblemDetail> answer(ProblemDetail problem, HttpHeaders headers) {
        return ProblemAnswers.answer(problem, headers, unavailableRetryAfterSeconds);
    }
}
