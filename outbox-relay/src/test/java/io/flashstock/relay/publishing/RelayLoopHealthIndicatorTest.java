package io.flashstock.relay.publishing;

import io.flashstock.relay.RelaySettings;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/** The loop's liveness from its heartbeat, on a clock the test moves. */
class RelayLoopHealthIndicatorTest {

    private static final Duration STALL_TIMEOUT = Duration.ofSeconds(20);

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final LoopHeartbeat heartbeat = new LoopHeartbeat(nanos::get);
    private final OutboxRelay relay = mock(OutboxRelay.class);
    private final RelaySettings settings = new RelaySettings("t", 10, Duration.ofMillis(25), Duration.ofSeconds(30),
            3, new RelaySettings.Backoff(Duration.ofMillis(100), Duration.ofSeconds(60), 2.0), "relay-test",
            Duration.ofDays(1), 1000, Duration.ofMinutes(1), Duration.ofSeconds(5), STALL_TIMEOUT);
    private final RelayLoopHealthIndicator indicator = new RelayLoopHealthIndicator(relay, heartbeat, settings);

    @BeforeEach
    void running() {
        when(relay.loopAlive()).thenReturn(true);
        when(relay.isRunning()).thenReturn(true);
        heartbeat.loopStarted();
    }

    @Test
    void longPauseBetweenCyclesIsLive() {
        heartbeat.cycleEnded(Duration.ofSeconds(60));
        advance(Duration.ofSeconds(59));

        assertThat(heartbeat.inCycleFor()).isZero();
        assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void cycleLongerThanTheStallTimeoutIsDownUntilItEnds() {
        heartbeat.cycleEnded(Duration.ofSeconds(1));
        advance(Duration.ofSeconds(1).plus(STALL_TIMEOUT));
        assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

        advance(Duration.ofMillis(1));
        assertThat(heartbeat.inCycleFor()).isEqualTo(STALL_TIMEOUT.plusMillis(1));
        assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
        assertThat(indicator.health().getDetails().get("reason").toString()).contains("stall-timeout");

        heartbeat.cycleEnded(Duration.ZERO);
        assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void firstCycleCountsFromTheStart() {
        advance(STALL_TIMEOUT.plusSeconds(1));
        assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
    }

    @Test
    void stoppedRelayIsNotJudgedByItsHeartbeat() {
        advance(STALL_TIMEOUT.plusSeconds(1));
        when(relay.isRunning()).thenReturn(false);

        assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void deadLoopThreadIsDown() {
        when(relay.loopAlive()).thenReturn(false);

        assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
        assertThat(indicator.health().getDetails().get("reason").toString()).contains("thread has ended");
    }

    private void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }
}
