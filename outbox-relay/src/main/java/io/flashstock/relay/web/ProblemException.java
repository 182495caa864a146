package io.flashstock.relay.web;

/** Ends a request with one of the relay's problems ({@link ProblemType}); see the shared one it extends. */
public class ProblemException extends io.flashstock.web.problem.ProblemException {

    public ProblemException(ProblemType type, String detail) {
        super(type, detail, null);
    }

    @Override
    public ProblemType type() {
        return (ProblemType) super.type();
    }
}
