package io.flashstock.order.dashboard;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/** Without background sampling (order-api's integration tests), a snapshot is taken when asked, once per period. */
class DashboardSnapshotsTest {

    private static final Instant T0 = Instant.parse("2026-11-26T14:00:00Z");

    @Test
    void notStartedItSamplesWhenAskedAtMostOncePerPeriodAndRunsNoThread() {
        RedisStats redis = mock(RedisStats.class);
        when(redis.read()).thenReturn(new RedisStats.Reading(null, null, "not asked", List.of()));
        Clock clock = mock(Clock.class);
        var history = new SnapshotHistory(10, DashboardCharts.SERIES.size());
        var snapshots = new DashboardSnapshots(mock(ProcessScrapes.class), redis, mock(ProcessCpu.class),
                mock(ConsumerLag.class), mock(LatestReconciliation.class), history, Duration.ofSeconds(1), clock);

        when(clock.instant()).thenReturn(T0);
        assertThat(snapshots.current().generatedAt()).isEqualTo(T0);
        when(clock.instant()).thenReturn(T0.plusMillis(999));
        assertThat(snapshots.current().generatedAt()).as("fresh: shared").isEqualTo(T0);
        when(clock.instant()).thenReturn(T0.plusSeconds(1));
        assertThat(snapshots.current().generatedAt()).isEqualTo(T0.plusSeconds(1));

        assertThat(history.columns().at()).containsExactly(T0.toEpochMilli(), T0.plusSeconds(1).toEpochMilli());
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("dashboard-sampler"));
    }
}
