package io.flashstock.stock.consuming;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * A replay stopped by a failure of the moment (database or Redis unreachable, a lock wait ran out): answered as a
 * 503 problem with code {@code REPLAY_STOPPED} and what the replay did before it; replaying again is safe.
 */
class ReplayStoppedException extends ErrorResponseException {

    ReplayStoppedException(String detail, ReplayReport done, Throwable cause) {
        super(HttpStatus.SERVICE_UNAVAILABLE, problem(detail, done), cause);
    }

    private static ProblemDetail problem(String detail, ReplayReport done) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                detail + "; before that: " + done.summary() + ". Replaying again is safe: applied events are skipped");
        problem.setTitle("Dead-letter replay stopped");
        problem.setProperty("code", "REPLAY_STOPPED");
        problem.setProperty("done", done);
        return problem;
    }
}
