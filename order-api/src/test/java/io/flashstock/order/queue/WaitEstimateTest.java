package io.flashstock.order.queue;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class WaitEstimateTest {

    private final WaitEstimate estimate = new WaitEstimate(new QueueSettings(50, Duration.ofMillis(100),
            Duration.ofSeconds(30), Duration.ofHours(1), Duration.ofSeconds(2), 100_000, 10));

    @Test
    void theWaitIsTheTicksNeededToAdmitEveryoneAhead() {
        assertThat(estimate.seconds(1)).isEqualTo(0.1);
        assertThat(estimate.seconds(50)).isEqualTo(0.1);
        assertThat(estimate.seconds(51)).isEqualTo(0.2);
        assertThat(estimate.seconds(5000)).isEqualTo(10.0);
    }

    @Test
    void pollAfterIsHalfTheWaitBetweenATickAndTheMost() {
        assertThat(estimate.pollAfterMillis(1)).isEqualTo(100);
        assertThat(estimate.pollAfterMillis(500)).isEqualTo(500);
        assertThat(estimate.pollAfterMillis(100_000)).isEqualTo(2000);
    }
}
