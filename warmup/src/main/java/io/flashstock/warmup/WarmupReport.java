package io.flashstock.warmup;

import java.time.Duration;

/**
 * What a warm-up did.
 *
 * @param succeeded orders answered 200
 * @param failed other answers, time-outs and connection errors
 * @param duration from the first request to the clean-up's end
 * @param firstLatency latency of the first order answered 200 (cold code)
 * @param lastLatency latency of the last order answered 200 (warmed code)
 * @param deadlineReached whether the deadline ended it before enough orders succeeded
 */
public record WarmupReport(int succeeded, int failed, Duration duration, Duration firstLatency,
                           Duration lastLatency, boolean deadlineReached) {
}
