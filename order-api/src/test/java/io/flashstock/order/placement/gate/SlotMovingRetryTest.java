package io.flashstock.order.placement.gate;

import io.flashstock.order.placement.core.PlacementSettings;
import io.flashstock.order.placement.core.TestSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The budget of a script refused TRYAGAIN, and what is counted. */
class SlotMovingRetryTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @Test
    void theBudgetBoundsThePausesBetweenAttempts() {
        assertThat(SlotMovingRetry.attemptsWithin(Duration.ZERO)).isEqualTo(1);
        assertThat(SlotMovingRetry.attemptsWithin(Duration.ofMillis(10))).isEqualTo(2);
        // 10 + 15 + 22.5 + 33.75 ms
        assertThat(SlotMovingRetry.attemptsWithin(Duration.ofMillis(100))).isEqualTo(5);
        // then 40 ms each
        assertThat(SlotMovingRetry.attemptsWithin(Duration.ofMillis(161))).isEqualTo(7);
    }

    @Test
    void aScriptThatRunsOnItsLastAttemptIsCountedAsRan() {
        var retry = new SlotMovingRetry(withBudget(Duration.ofMillis(10)), meters);
        var calls = new AtomicInteger();

        assertThat(retry.send(() -> {
            if (calls.incrementAndGet() == 1) {
                throw tryAgain();
            }
            return "ran";
        })).isEqualTo("ran");

        assertThat(count("retried")).isEqualTo(1);
        assertThat(count("ran")).isEqualTo(1);
        assertThat(count("refused")).isZero();
    }

    @Test
    void anotherFailureIsNotSentAgain() {
        var retry = new SlotMovingRetry(withBudget(Duration.ofMillis(100)), meters);
        var calls = new AtomicInteger();

        assertThatThrownBy(() -> retry.send(() -> {
            calls.incrementAndGet();
            throw new QueryTimeoutException("Redis command timed out");
        })).isInstanceOf(QueryTimeoutException.class);

        assertThat(calls).hasValue(1);
        assertThat(count("retried") + count("ran") + count("refused")).isZero();
    }

    private double count(String outcome) {
        return meters.counter("flashstock.redis.tryagain", "outcome", outcome).count();
    }

    private static RedisSystemException tryAgain() {
        return new RedisSystemException("Error in execution",
                new IllegalStateException("TRYAGAIN Multiple keys request during rehashing of slot"));
    }

    private static PlacementSettings withBudget(Duration budget) {
        var defaults = TestSettings.defaults();
        return new PlacementSettings(new PlacementSettings.Redis(Duration.ofSeconds(60), Duration.ofSeconds(5), budget),
                defaults.groupCommit(), defaults.outage(), defaults.inDoubt(), defaults.overload(), defaults.dbLock());
    }
}
