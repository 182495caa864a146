package io.flashstock.relay;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RelaySettingsTest {

    private static final RelaySettings.Backoff BACKOFF =
            new RelaySettings.Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), 2.0);

    @Test
    void backoffDoublesFromInitialUpToMax() {
        assertThat(BACKOFF.after(1)).isEqualTo(Duration.ofMillis(500));
        assertThat(BACKOFF.after(2)).isEqualTo(Duration.ofSeconds(1));
        assertThat(BACKOFF.after(4)).isEqualTo(Duration.ofSeconds(4));
        assertThat(BACKOFF.after(7)).isEqualTo(Duration.ofSeconds(30));
        assertThat(BACKOFF.after(10_000)).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void blankInstanceIdBecomesHostPidAndRandomSuffixThatFitsTheColumn() {
        RelaySettings first = settings("", 500);
        RelaySettings second = settings("", 500);

        assertThat(first.instanceId()).isNotBlank().hasSizeLessThanOrEqualTo(64)
                .contains("-" + ProcessHandle.current().pid() + "-");
        assertThat(first.instanceId()).isNotEqualTo(second.instanceId());
        assertThat(settings("relay-a", 500).instanceId()).isEqualTo("relay-a");
    }

    @Test
    void rejectsSettingsThatCannotWork() {
        assertThatIllegalArgumentException().isThrownBy(() -> settings("", 0)).withMessageContaining("batch-size");
        assertThatIllegalArgumentException().isThrownBy(() -> settings("x".repeat(65), 500))
                .withMessageContaining("instance-id");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RelaySettings.Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), 2.0))
                .withMessageContaining("backoff.max");
    }

    private static RelaySettings settings(String instanceId, int batchSize) {
        return new RelaySettings("stock-events", batchSize, Duration.ofMillis(25), Duration.ofSeconds(30), 12,
                BACKOFF, instanceId, Duration.ofDays(1), 1000, Duration.ofMinutes(1), Duration.ofSeconds(5),
                Duration.ofMinutes(3));
    }
}
