package io.flashstock.order.refusal;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@link Refusal} thrown, by an adapter or a use case that cannot return it; the web layer answers it. No stack
 * trace of its own (the cause keeps its): it is an answer, not a bug, and some are thrown under load.
 */
public class RefusedException extends RuntimeException {

    private final Refusal refusal;
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private Duration retryAfter;

    public RefusedException(Refusal refusal, String detail) {
        this(refusal, detail, null);
    }

    public RefusedException(Refusal refusal, String detail, Throwable cause) {
        super(detail, cause, false, false);
        this.refusal = refusal;
    }

    /** Adds a fact the client may act on (the item, what is left, ...), answered next to the refusal's code. */
    public RefusedException with(String name, Object value) {
        properties.put(name, value);
        return this;
    }

    /** How long the client should wait before it tries again. */
    public RefusedException retryAfter(Duration wait) {
        retryAfter = wait;
        return this;
    }

    public Refusal refusal() {
        return refusal;
    }

    public Map<String, Object> properties() {
        return Collections.unmodifiableMap(properties);
    }

    /** The wait before a retry, or null for none said. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
