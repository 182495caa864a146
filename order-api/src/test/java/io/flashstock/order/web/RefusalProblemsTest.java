package io.flashstock.order.web;

import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.context.request.ServletWebRequest;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A refusal is answered as the problem of its name: the {@code code} clients rely on and the Lua scripts' replies
 * name stays what it was when use cases threw the problem themselves.
 */
class RefusalProblemsTest {

    private final ProblemAdvice advice = new ProblemAdvice(List.of());

    @ParameterizedTest
    @EnumSource(Refusal.class)
    void eachRefusalIsTheProblemOfItsName(Refusal refusal) {
        assertThat(RefusalProblems.type(refusal)).isEqualTo(ProblemType.valueOf(refusal.name()));
    }

    @Test
    void aThrownRefusalIsAnsweredWithItsDetailPropertiesAndWaitInWholeSecondsRoundedUp() {
        var refused = new RefusedException(Refusal.QUEUE_FULL, "the waiting room of item a is full")
                .with("itemCode", "a").with("maxWaiting", 500L).retryAfter(Duration.ofMillis(2_500));

        var answer = advice.refused(refused, new ServletWebRequest(new MockHttpServletRequest("POST", "/queue")));

        assertThat(answer.getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
        assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("3");
        assertThat(answer.getBody().getTitle()).isEqualTo(ProblemType.QUEUE_FULL.title());
        assertThat(answer.getBody().getDetail()).isEqualTo("the waiting room of item a is full");
        assertThat(answer.getBody().getProperties()).containsEntry("code", "QUEUE_FULL")
                .containsEntry("itemCode", "a").containsEntry("maxWaiting", 500L);
    }

    @Test
    void anUnavailableRefusalWithoutAWaitGetsTheServicesRetryAfter() {
        var refused = new RefusedException(Refusal.REDIS_UNAVAILABLE, "Redis did not answer");

        var answer = advice.refused(refused, new ServletWebRequest(new MockHttpServletRequest("POST", "/x")));

        assertThat(answer.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
        assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo(Problems.RETRY_AFTER_SECONDS);
    }
}
