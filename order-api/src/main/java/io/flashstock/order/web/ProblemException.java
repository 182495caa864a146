package io.flashstock.order.web;

import java.time.Duration;

/** Ends a request with one of this service's problems ({@link ProblemType}); see the shared one it extends. */
public class ProblemException extends io.flashstock.web.problem.ProblemException {

    public ProblemException(ProblemType type, String detail) {
        this(type, detail, null);
    }

    public ProblemException(ProblemType type, String detail, Throwable cause) {
        super(type, detail, cause);
    }

    @Override
    public ProblemException with(String name, Object value) {
        super.with(name, value);
        return this;
    }

    @Override
    public ProblemException retryAfter(Duration wait) {
        super.retryAfter(wait);
        return this;
    }

    @Override
    public ProblemType type() {
        return (ProblemType) super.type();
    }
}
