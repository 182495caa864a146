package io.flashstock.stock.consuming;

import io.flashstock.contract.StockDeducted;
import io.flashstock.contract.StockEvent;
import io.flashstock.contract.StockReset;
import io.flashstock.stock.ledger.Anomaly;
import io.flashstock.stock.ledger.AnomalyKind;
import io.flashstock.stock.ledger.LedgerOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Counts what committed batches did; recorded after the commit, so a retried batch is not counted twice. Events
 * stamped further ahead of this clock than {@code flashstock.consumer.max-clock-skew} are applied like any other;
 * they are counted and logged here, so that a fast order-api clock is seen and fixed.
 */
@Component
class LedgerMetrics {

    private static final Logger log = LoggerFactory.getLogger(LedgerMetrics.class);

    private final Map<String, Counter> applied;
    private final Counter duplicates;
    private final Counter stale;
    private final Map<AnomalyKind, Counter> anomalies = new EnumMap<>(AnomalyKind.class);
    private final Timer latency;
    private final Timer batches;
    private final DistributionSummary batchSizes;
    private final Counter aheadOfClock;
    private final Duration maxClockSkew;
    private final Clock clock;

    LedgerMetrics(MeterRegistry registry, ConsumerSettings consumer, Clock clock) {
        this.clock = clock;
        this.maxClockSkew = consumer.maxClockSkew();
        applied = Map.of(
                StockDeducted.TYPE, appliedCounter(registry, StockDeducted.TYPE),
                StockReset.TYPE, appliedCounter(registry, StockReset.TYPE));
        duplicates = Counter.builder("flashstock.consumer.events.duplicates")
                .description("Events skipped because their id was already processed")
                .register(registry);
        stale = Counter.builder("flashstock.consumer.events.stale")
                .description("Events of an older generation than the stored one, recorded and not applied")
                .register(registry);
        for (AnomalyKind kind : AnomalyKind.values()) {
            if (kind != AnomalyKind.STALE) {
                anomalies.put(kind, Counter.builder("flashstock.consumer.anomalies")
                        .description("Deductions recorded as anomalies instead of being applied")
                        .tag("kind", kind.name())
                        .register(registry));
            }
        }
        latency = Timer.builder("flashstock.consumer.event.latency")
                .description("From the event's occurredAt to the commit that applied it")
                .publishPercentileHistogram()
                .register(registry);
        batches = Timer.builder("flashstock.consumer.batch.duration")
                .description("Locks, transaction and commit of one batch; the lock lease must stay well above it")
                .publishPercentileHistogram()
                .register(registry);
        batchSizes = DistributionSummary.builder("flashstock.consumer.batch.size")
                .description("Events handed to the ledger in one transaction")
                .baseUnit("events")
                .register(registry);
        aheadOfClock = Counter.builder("flashstock.consumer.events.clock.ahead")
                .description("Events processed although their occurredAt was further ahead of this clock than"
                        + " flashstock.consumer.max-clock-skew")
                .register(registry);
    }

    private static Counter appliedCounter(MeterRegistry registry, String type) {
        return Counter.builder("flashstock.consumer.events.applied")
                .description("Events applied to the stock database")
                .tag("type", type)
                .register(registry);
    }

    void record(int events, LedgerOutcome outcome, long batchNanos) {
        batches.record(batchNanos, TimeUnit.NANOSECONDS);
        batchSizes.record(events);
        Instant committed = clock.instant();
        for (StockEvent event : outcome.applied()) {
            applied.get(event.type()).increment();
            Duration sinceOccurred = Duration.between(event.occurredAt(), committed);
            latency.record(sinceOccurred.isNegative() ? Duration.ZERO : sinceOccurred);
        }
        applied.get(StockDeducted.TYPE).increment(outcome.released());
        recordAheadOfClock(outcome, committed);
        duplicates.increment(outcome.duplicates());
        for (Anomaly anomaly : outcome.anomalies()) {
            if (anomaly.kind() == AnomalyKind.STALE) {
                stale.increment();
            } else {
                anomalies.get(anomaly.kind()).increment();
            }
        }
    }

    /** Events applied or recorded as anomalies in this batch whose time lies too far ahead: one warning per batch. */
    private void recordAheadOfClock(LedgerOutcome outcome, Instant committed) {
        Instant latest = committed.plus(maxClockSkew);
        var ahead = Stream.concat(outcome.applied().stream(), outcome.anomalies().stream().map(Anomaly::event))
                .filter(event -> event.occurredAt().isAfter(latest)).toList();
        if (ahead.isEmpty()) {
            return;
        }
        aheadOfClock.increment(ahead.size());
        StockEvent furthest = ahead.stream().max(Comparator.comparing(StockEvent::occurredAt)).orElseThrow();
        log.warn("processed {} events stamped more than flashstock.consumer.max-clock-skew ({}) ahead of this clock,"
                        + " up to {} ahead ({} {} of item {}): check the clocks of order-api and this host",
                ahead.size(), maxClockSkew, Duration.between(committed, furthest.occurredAt()), furthest.type(),
                furthest.eventId(), furthest.itemCode());
    }
}
