package io.flashstock.relay.web;

/** Ends a request with a problem answer; an answer, not a bug, so it carries no stack trace of its own. */
public class ProblemException extends RuntimeException {

    private final ProblemType type;

    public ProblemException(ProblemType type, String detail) {
        super(detail, null, false, false);
        this.type = type;
    }

    public ProblemType type() {
        return type;
    }
}
