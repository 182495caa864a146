package io.flashstock.relay.publishing;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The relay loop's heartbeat: the loop records each cycle it finishes (claim, publish, mark; failed or not)
 * and the pause it then takes. Past the end of that pause the loop is in its next cycle, and the time since
 * then is how long that cycle has been running: a loop waiting out a long backoff is not stuck, one that has
 * not finished a cycle long after its pause ended is. On a monotonic clock, so a clock step changes nothing.
 */
public class LoopHeartbeat {

    private final LongSupplier nanoTime;
    private volatile long nextCycleStartNanos;

    LoopHeartbeat(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.nextCycleStartNanos = nanoTime.getAsLong();
    }

    /** The loop is about to start its first cycle. */
    void loopStarted() {
        nextCycleStartNanos = nanoTime.getAsLong();
    }

    /** The loop finished a cycle and pauses {@code pause} before the next. */
    void cycleEnded(Duration pause) {
        nextCycleStartNanos = nanoTime.getAsLong() + pause.toNanos();
    }

    /** How long the loop has been in its current cycle; zero while it pauses between cycles. */
    public Duration inCycleFor() {
        return Duration.ofNanos(Math.max(0, nanoTime.getAsLong() - nextCycleStartNanos));
    }
}
