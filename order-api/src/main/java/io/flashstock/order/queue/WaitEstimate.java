package io.flashstock.order.queue;

import org.springframework.stereotype.Component;

/**
 * How long a waiting ticket may wait, from its position and the admission rate: a lower bound, since admissions
 * also wait for units that unused admissions hold. And when to poll again: half of that, at least one tick, at
 * most {@code flashstock.queue.max-poll-after}.
 */
@Component
class WaitEstimate {

    private final QueueSettings settings;

    WaitEstimate(QueueSettings settings) {
        this.settings = settings;
    }

    /** Seconds, to a tenth: the ticks needed to admit everyone up to {@code position}. */
    double seconds(long position) {
        long ticks = (position + settings.admitPerTick() - 1) / settings.admitPerTick();
        return Math.ceil(ticks * settings.tick().toMillis() / 100.0) / 10.0;
    }

    long pollAfterMillis(long position) {
        long half = (long) (seconds(position) * 500);
        return Math.max(settings.tick().toMillis(), Math.min(half, settings.maxPollAfter().toMillis()));
    }
}
