package io.flashstock.web.problem;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Ends a request with a problem answer. Carries no stack trace of its own (the cause, if any, keeps
 * its), since it is an answer, not a bug, and some of these are thrown under load.
 */
public class ProblemException extends RuntimeException {

    private final ProblemType type;
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private Long retryAfterSeconds;

    public ProblemException(ProblemType type, String detail, Throwable cause) {
        super(detail, cause, false, false);
        this.type = type;
    }

    /** Adds a property to the problem body, next to {@code code}. */
    public ProblemException with(String name, Object value) {
        properties.put(name, value);
        return this;
    }

    /** Answers with {@code Retry-After}: whole seconds, rounded up, at least one. */
    public ProblemException retryAfter(Duration wait) {
        retryAfterSeconds = Math.max(1, (wait.toMillis() + 999) / 1000);
        return this;
    }

    /** The seconds of {@code Retry-After}, or null for none. */
    public Long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    public ProblemType type() {
        return type;
    }

    public Map<String, Object> properties() {
        return properties;
    }
}
