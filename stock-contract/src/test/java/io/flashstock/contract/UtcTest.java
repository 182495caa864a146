package io.flashstock.contract;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.LocalDateTime;
import java.util.TimeZone;

import static org.assertj.core.api.Assertions.assertThat;

class UtcTest {

    @Test
    void writesUtcTextWithMicroseconds() {
        assertThat(Utc.toColumn(Instant.parse("2026-11-24T01:02:03.123456Z"))).isEqualTo("2026-11-24 01:02:03.123456");
        assertThat(Utc.toColumn(Instant.parse("2026-11-24T01:02:03Z"))).isEqualTo("2026-11-24 01:02:03.000000");
    }

    @Test
    void cutsNanosecondsToMicroseconds() {
        assertThat(Utc.toColumn(Instant.parse("2026-11-24T01:02:03.123456789Z"))).isEqualTo("2026-11-24 01:02:03.123456");
    }

    @Test
    void ignoresTheJvmTimeZone() {
        TimeZone saved = TimeZone.getDefault();
        try {
            TimeZone.setDefault(TimeZone.getTimeZone("Asia/Tokyo"));
            Instant at = Instant.parse("2026-11-24T23:30:00.5Z");
            assertThat(Utc.toColumn(at)).isEqualTo("2026-11-24 23:30:00.500000");
            assertThat(Utc.fromColumn(LocalDateTime.parse("2026-11-24T23:30:00.5"))).isEqualTo(at);
        } finally {
            TimeZone.setDefault(saved);
        }
    }

    @Test
    void readsTheColumnBackAsUtc() {
        Instant at = Instant.parse("2026-11-24T01:02:03.123456Z");
        assertThat(Utc.fromColumn(LocalDateTime.parse(Utc.toColumn(at).replace(' ', 'T')))).isEqualTo(at);
        assertThat(Utc.fromColumn(null)).isNull();
    }
}
