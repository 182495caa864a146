package io.flashstock.order.web;

import io.flashstock.admin.AdminAccessDenied;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.transaction.TransactionException;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Turns every error raised in Spring MVC into {@code application/problem+json} with a stable {@code code};
 * {@link ErrorProblems} does the same for errors raised outside it.
 */
@RestControllerAdvice
class ProblemAdvice extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemAdvice.class);

    private final List<RejectionListener> rejections;

    ProblemAdvice(List<RejectionListener> rejections) {
        this.rejections = rejections;
    }

    @ExceptionHandler(ProblemException.class)
    ResponseEntity<ProblemDetail> problem(ProblemException ex, WebRequest request) {
        ProblemDetail problem = Problems.detail(ex.type(), ex.getMessage());
        ex.properties().forEach(problem::setProperty);
        var headers = new HttpHeaders();
        if (ex.retryAfterSeconds() != null) {
            headers.set(HttpHeaders.RETRY_AFTER, ex.retryAfterSeconds().toString());
        }
        if (ex.type().status().is5xxServerError()) {
            log.warn("{}: {}{}", ex.type().code(), ex.getMessage(),
                    ex.getCause() == null ? "" : " (" + ex.getCause() + ")");
        }
        reportRejection(problem, request);
        return Problems.answer(problem, headers);
    }

    /** The admin token guard's refusals ({@code io.flashstock.admin}): its problem and headers, answered as ours. */
    @ExceptionHandler(AdminAccessDenied.class)
    ResponseEntity<ProblemDetail> adminAccessDenied(AdminAccessDenied ex, WebRequest request) {
        reportRejection(ex.getBody(), request);
        return Problems.answer(ex.getBody(), ex.getHeaders());
    }

    /** Database failures that no feature translated itself (Redis failures are translated where they occur). */
    @ExceptionHandler({DataAccessException.class, TransactionException.class})
    ResponseEntity<ProblemDetail> database(RuntimeException ex, WebRequest request) {
        return problem(new ProblemException(ProblemType.DATABASE_UNAVAILABLE, "the orders database did not answer", ex),
                request);
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> unexpected(Exception ex) {
        log.error("unexpected error", ex);
        return Problems.answer(ProblemType.INTERNAL_ERROR, "unexpected error; see the service log");
    }

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
                                                                  HttpHeaders headers, HttpStatusCode status,
                                                                  WebRequest request) {
        ProblemDetail problem = unreadableBody(ex);
        return handleExceptionInternal(ex, problem, headers, HttpStatusCode.valueOf(problem.getStatus()), request);
    }

    @Override
    protected ResponseEntity<Object> handleExceptionInternal(Exception ex, Object body, HttpHeaders headers,
                                                             HttpStatusCode statusCode, WebRequest request) {
        ProblemDetail problem = body instanceof ProblemDetail detail ? detail
                : ProblemDetail.forStatusAndDetail(statusCode, ex.getMessage());
        if (problem.getProperties() == null || !problem.getProperties().containsKey("code")) {
            Problems.describe(problem, typeOf(ex, statusCode));
        }
        reportRejection(problem, request);
        ResponseEntity<ProblemDetail> answer = Problems.answer(problem, headers);
        return new ResponseEntity<>(answer.getBody(), answer.getHeaders(), answer.getStatusCode());
    }

    private static ProblemType typeOf(Exception ex, HttpStatusCode status) {
        if (ex instanceof HttpMediaTypeNotSupportedException) {
            return ProblemType.UNSUPPORTED_MEDIA_TYPE;
        }
        if (ex instanceof HttpMediaTypeNotAcceptableException) {
            return ProblemType.NOT_ACCEPTABLE;
        }
        if (ex instanceof HttpRequestMethodNotSupportedException) {
            return ProblemType.METHOD_NOT_ALLOWED;
        }
        return ProblemType.forStatus(status.value());
    }

    private static ProblemDetail unreadableBody(HttpMessageNotReadableException ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof BodyTooLargeException tooLarge) {
                return Problems.detail(ProblemType.BODY_TOO_LARGE, tooLarge.getMessage());
            }
        }
        Throwable cause = ex.getCause();
        if (cause instanceof UnrecognizedPropertyException unknown) {
            return Problems.detail(ProblemType.INVALID_REQUEST, "unknown field '" + unknown.getPropertyName() + "'");
        }
        if (cause instanceof InputCoercionException) {
            return Problems.detail(ProblemType.INVALID_REQUEST, "a number is out of range");
        }
        if (cause instanceof DatabindException mismatch) {
            String field = mismatch.getPath().stream().map(JacksonException.Reference::getPropertyName)
                    .filter(Objects::nonNull).collect(Collectors.joining("."));
            return Problems.detail(ProblemType.INVALID_REQUEST,
                    field.isEmpty() ? "the body must be a JSON object" : "field '" + field + "' has the wrong type");
        }
        if (cause instanceof StreamReadException malformed) {
            return Problems.detail(ProblemType.MALFORMED_JSON, "not valid JSON: " + malformed.getOriginalMessage());
        }
        return Problems.detail(ProblemType.MALFORMED_JSON, "the request body is missing");
    }

    private void reportRejection(ProblemDetail problem, WebRequest request) {
        if (problem.getStatus() >= 400 && problem.getStatus() < 500 && request instanceof ServletWebRequest servlet) {
            rejections.forEach(listener -> listener.rejected(servlet.getRequest()));
        }
    }
}
