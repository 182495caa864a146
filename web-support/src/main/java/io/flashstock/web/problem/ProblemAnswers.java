package io.flashstock.web.problem;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/** Builds RFC 9457 answers: {@code application/problem+json} with the problem's stable {@code code}. */
public final class ProblemAnswers {

    private ProblemAnswers() {
    }

    public static ProblemDetail detail(ProblemType type, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(type.status(), detail);
        describe(problem, type);
        return problem;
    }

    /** Sets type, title and code on a problem Spring created. */
    public static void describe(ProblemDetail problem, ProblemType type) {
        problem.setType(type.type());
        problem.setTitle(type.title());
        problem.setProperty("code", type.code());
    }

    /**
     * The content type is set here, not negotiated, so that the problem is answered as problem+json even to
     * a client whose Accept header caused the problem (406). A 503 tells the client when to retry.
     */
    public static ResponseEntity<ProblemDetail> answer(ProblemDetail problem, HttpHeaders headers,
                                                       String unavailableRetryAfterSeconds) {
        var response = ResponseEntity.status(problem.getStatus()).headers(headers)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (problem.getStatus() == 503) {
            response.header(HttpHeaders.RETRY_AFTER, unavailableRetryAfterSeconds);
        }
        return response.body(problem);
    }
}
