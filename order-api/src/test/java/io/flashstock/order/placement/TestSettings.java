package io.flashstock.order.placement;

import io.flashstock.order.config.OrderSettings;
import org.springframework.util.unit.DataSize;

import java.time.Duration;

/** The engine's settings at their defaults, for unit tests that build its classes by hand. */
final class TestSettings {

    /** The Redis gate's take deadline plus its take record's life: a first attempt older than this is abandoned. */
    static final Duration ABANDONED_AFTER = Duration.ofSeconds(65);

    private TestSettings() {
    }

    /** The defaults, but with the group commit writing each order alone on its caller's thread. */
    static OrderSettings defaults() {
        return new OrderSettings(100, 64, DataSize.ofKilobytes(4), Duration.ofHours(24), Duration.ofDays(7),
                new OrderSettings.Reload(Duration.ofSeconds(1), Duration.ofSeconds(15)),
                new OrderSettings.Redis(0, 0, Duration.ofSeconds(60), Duration.ofSeconds(5)),
                new OrderSettings.GroupCommit(0, 64),
                new OrderSettings.Outage(Duration.ofSeconds(1)),
                new OrderSettings.InDoubt(Duration.ofSeconds(1)),
                new OrderSettings.Overload(0, Duration.ofMillis(10)),
                new OrderSettings.DbLock(50, 10, Duration.ofSeconds(1)));
    }
}
