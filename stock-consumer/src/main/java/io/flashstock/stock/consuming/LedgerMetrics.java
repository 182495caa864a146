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
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Counts what committed batches did; recorded after the commit, so a retried batch is not counted twice. */
@Component
class LedgerMetrics {

    private final Map<String, Counter> applied;
    private final Counter duplicates;
    private final Counter stale;
    private final Map<AnomalyKind, Counter> anomalies = new EnumMap<>(AnomalyKind.class);
    private final Timer latency;
    private final Timer batches;
    private final DistributionSummary batchSizes;
    private final Clock clock;

    LedgerMetrics(MeterRegistry registry, Clock clock) {
        this.clock = clock;
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
        duplicates.increment(outcome.duplicates());
        for (Anomaly anomaly : outcome.anomalies()) {
            if (anomaly.kind() == AnomalyKind.STALE) {
                stale.increment();
            } else {
                anomalies.get(anomaly.kind()).increment();
            }
        }
    }
}
