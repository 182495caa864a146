package io.flashstock.order.dashboard;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * One snapshot per {@code refreshEvery}, shared by every viewer: however many pages poll, the processes are
 * scraped and Redis asked at most once per period, and only while someone looks. Rates are measured against
 * the previous snapshot's sample, latency percentiles against the oldest within {@link #LATENCY_WINDOW}.
 */
class DashboardSnapshots {

    private final ProcessScrapes scrapes;
    private final RedisStats redis;
    private final LatestReconciliation reconciliation;
    private final Duration refreshEvery;
    private final Clock clock;

    /** Latency percentiles cover this much, so a quiet second does not blank them. */
    static final Duration LATENCY_WINDOW = Duration.ofSeconds(10);

    private final Deque<EngineSample> recent = new ArrayDeque<>();
    private DashboardSnapshot current;

    DashboardSnapshots(ProcessScrapes scrapes, RedisStats redis, LatestReconciliation reconciliation,
                       Duration refreshEvery, Clock clock) {
        this.scrapes = scrapes;
        this.redis = redis;
        this.reconciliation = reconciliation;
        this.refreshEvery = refreshEvery;
        this.clock = clock;
    }

    synchronized DashboardSnapshot current() {
        Instant now = clock.instant();
        if (current != null && Duration.between(current.generatedAt(), now).compareTo(refreshEvery) < 0) {
            return current;
        }
        EngineSample sample = new EngineSample(now, scrapes.scrapeAll(), redis.read());
        while (recent.size() > 1 && Duration.between(recent.peekFirst().at(), now).compareTo(LATENCY_WINDOW) > 0) {
            recent.removeFirst();
        }
        EngineView engine = recent.isEmpty() ? EngineRates.between(sample, sample, sample)
                : EngineRates.between(recent.peekFirst(), recent.peekLast(), sample);
        recent.addLast(sample);
        current = new DashboardSnapshot(now, engine, ReconciliationView.of(reconciliation.latest()));
        return current;
    }
}
