package io.flashstock.relay.web;

import io.flashstock.web.problem.ProblemAnswers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The relay's problem answers ({@link io.flashstock.web.problem.ProblemAdvice}, as order-api's): its
 * {@link ProblemType}s and the orders database's failures.
 */
@RestControllerAdvice
class ProblemAdvice extends io.flashstock.web.problem.ProblemAdvice {

    private static final Logger log = LoggerFactory.getLogger(ProblemAdvice.class);
    /** Seconds before a retry after a 503; the pool gives up on a connection after its timeout anyway. */
    private static final String RETRY_AFTER_SECONDS = "5";

    ProblemAdvice() {
        super(RETRY_AFTER_SECONDS);
    }

    @Override
    protected ProblemType problemForStatus(int status) {
        return ProblemType.forStatus(status);
    }

    @ExceptionHandler(DataAccessException.class)
    ResponseEntity<ProblemDetail> database(DataAccessException ex) {
        log.warn("DATABASE_UNAVAILABLE: {}", ex.getMostSpecificCause().toString());
        return answer(ProblemAnswers.detail(ProblemType.DATABASE_UNAVAILABLE, "the orders database did not answer"),
                new HttpHeaders());
    }
}
