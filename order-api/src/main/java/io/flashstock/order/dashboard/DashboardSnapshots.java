package io.flashstock.order.dashboard;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * One snapshot per {@code refreshEvery}, shared by every viewer: however many pages poll, the processes are
 * scraped and Redis asked at most once per period, and only while someone looks. Rates are measured against
 * the previous snapshot's sample.
 */
class DashboardSnapshots {

    private final ProcessScrapes scrapes;
    private final RedisStats redis;
    private final LatestReconciliation reconciliation;
    private final Duration refreshEvery;
    private final Clock clock;

    private EngineSample previous;
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
        EngineView engine = EngineRates.between(previous == null ? sample : previous, sample);
        previous = sample;
        current = new DashboardSnapshot(now, engine, ReconciliationView.of(reconciliation.latest()));
        return current;
    }
}
