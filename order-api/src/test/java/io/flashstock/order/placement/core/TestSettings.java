package io.flashstock.order.placement.core;

import java.time.Duration;

/** The engine's settings at their defaults, for unit tests that build its classes by hand. */
public final class TestSettings {

    /** The Redis gate's take deadline plus its take record's life: a first attempt older than this is abandoned. */
    public static final Duration ABANDONED_AFTER = Duration.ofSeconds(65);
    /** How long an order-api that stopped marking itself alive, and its orders in doubt, wait for it. */
    public static final Duration IN_DOUBT_ABANDONED_AFTER = Duration.ofSeconds(10);

    private TestSettings() {
    }

    /** The defaults, but with the group commit writing each order alone on its caller's thread. */
    public static PlacementSettings defaults() {
        return new PlacementSettings(
                new PlacementSettings.Redis(Duration.ofSeconds(60), Duration.ofSeconds(5), Duration.ofMillis(100)),
                new PlacementSettings.GroupCommit(0, 64),
                new PlacementSettings.Outage(Duration.ofSeconds(1)),
                new PlacementSettings.InDoubt(Duration.ofSeconds(1), IN_DOUBT_ABANDONED_AFTER),
                new PlacementSettings.Overload(0, Duration.ofMillis(10)),
                new PlacementSettings.DbLock(50, 10, Duration.ofSeconds(1)));
    }
}
