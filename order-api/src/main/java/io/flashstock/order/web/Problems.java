package io.flashstock.order.web;

import io.flashstock.web.problem.ProblemAnswers;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/** Builds this service's RFC 9457 answers ({@link ProblemAnswers}), a 503 with {@code Retry-After: 1}. */
public final class Problems {

    /** Seconds a client should wait before retrying after a 503; Redis and the pool time out in about one. */
    static final String RETRY_AFTER_SECONDS = "1";

    private Problems() {
    }

    public static ProblemDetail detail(ProblemType type, String detail) {
        return ProblemAnswers.detail(type, detail);
    }

    /** Sets type, title and code on a problem Spring created. */
    public static void describe(ProblemDetail problem, ProblemType type) {
        ProblemAnswers.describe(problem, type);
    }

    public static ResponseEntity<ProblemDetail> answer(ProblemType type, String detail) {
        return answer(detail(type, detail));
    }

    public static ResponseEntity<ProblemDetail> answer(ProblemDetail problem) {
        return answer(problem, new HttpHeaders());
    }

    public static ResponseEntity<ProblemDetail> answer(ProblemDetail problem, HttpHeaders headers) {
        return ProblemAnswers.answer(problem, headers, RETRY_AFTER_SECONDS);
    }
}
