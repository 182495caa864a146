package io.flashstock.order.web;

import io.flashstock.order.refusal.RefusedException;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.transaction.TransactionException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.context.request.WebRequest;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * This service's problem answers ({@link io.flashstock.web.problem.ProblemAdvice}): its {@link ProblemType}s, its
 * database and request-body errors, and each 4xx reported to the {@link RejectionListener}s;
 * {@link ErrorProblems} does the same for errors raised outside Spring MVC.
 */
@RestControllerAdvice
class ProblemAdvice extends io.flashstock.web.problem.ProblemAdvice {

    private final List<RejectionListener> rejections;

    ProblemAdvice(List<RejectionListener> rejections) {
        super(Problems.RETRY_AFTER_SECONDS);
        this.rejections = rejections;
    }

    @Override
    protected ProblemType problemForStatus(int status) {
        return ProblemType.forStatus(status);
    }

    /** A use case's or adapter's refusal, answered as the problem {@link RefusalProblems} maps it to. */
    @ExceptionHandler(RefusedException.class)
    ResponseEntity<ProblemDetail> refused(RefusedException ex, WebRequest request) {
        return problem(RefusalProblems.problem(ex), request);
    }

    /** Database failures that no feature translated itself (Redis failures are translated where they occur). */
    @ExceptionHandler({DataAccessException.class, TransactionException.class})
    ResponseEntity<ProblemDetail> database(RuntimeException ex, WebRequest request) {
        return problem(new ProblemException(ProblemType.DATABASE_UNAVAILABLE, "the orders database did not answer", ex),
                request);
    }

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
                                                                  HttpHeaders headers, HttpStatusCode status,
                                                                  WebRequest request) {
        ProblemDetail problem = unreadableBody(ex);
        return handleExceptionInternal(ex, problem, headers, HttpStatusCode.valueOf(problem.getStatus()), request);
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

    @Override
    protected void answering(ProblemDetail problem, WebRequest request) {
        if (problem.getStatus() >= 400 && problem.getStatus() < 500 && request instanceof ServletWebRequest servlet) {
            rejections.forEach(listener -> listener.rejected(servlet.getRequest()));
        }
    }
}
