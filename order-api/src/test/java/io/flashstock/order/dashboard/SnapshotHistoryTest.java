package io.flashstock.order.dashboard;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The dashboard's history: a ring of fixed size that keeps the newest points, oldest first. */
class SnapshotHistoryTest {

    @Test
    void keepsTheNewestPointsOldestFirstOnceFull() {
        var history = new SnapshotHistory(3, 2);
        for (int t = 1; t <= 5; t++) {
            history.add(t * 1000L, new float[] {t, t == 4 ? Float.NaN : -t});
        }

        var columns = history.columns();

        assertThat(columns.at()).containsExactly(3000, 4000, 5000);
        assertThat(columns.values()).containsExactly(List.of(3f, 4f, 5f), Arrays.asList(-3f, null, -5f));
    }

    @Test
    void holdsWhatItWasGivenBeforeItIsFull() {
        var history = new SnapshotHistory(900, 1);
        history.add(1000, new float[] {7});

        assertThat(history.columns().at()).containsExactly(1000);
        assertThat(history.columns().values()).containsExactly(List.of(7f));
    }

    @Test
    void fifteenMinutesAtOneSecondOfEverySeriesIsItsFixedSize() {
        var settings = new DashboardSettings(null, Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofMillis(500), Duration.ofMinutes(15), Map.of(), true);
        var history = new SnapshotHistory(settings.historyPoints(), DashboardCharts.SERIES.size());

        assertThat(history.capacity()).isEqualTo(900);
        assertThat(DashboardCharts.SERIES).hasSize(21);
        assertThat(history.bytes()).as("900 × (8 + 21 × 4)").isEqualTo(82_800);
    }
}
