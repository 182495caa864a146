package io.flashstock.relay.publishing;

import io.flashstock.relay.RelaySettings;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.List;

/** What the relay loop counts; the table-wide gauges are sampled by {@code monitoring.OutboxBacklog}. */
@Component
public class RelayMetrics {

    private static final Duration LATENCY_FLOOR = Duration.ofMillis(1);
    private static final Duration LATENCY_CEILING = Duration.ofMinutes(5);

    private final Timer publishLatency;
    private final DistributionSummary batchSize;
    private final Counter published;
    private final Counter retries;
    private final Counter dead;

    public RelayMetrics(MeterRegistry registry, RelaySettings settings) {
        publishLatency = Timer.builder("flashstock.relay.publish.latency")
                .description("From the outbox row's created_at to the broker's acknowledgement")
                .publishPercentileHistogram()
                .minimumExpectedValue(LATENCY_FLOOR)
                .maximumExpectedValue(LATENCY_CEILING)
                .register(registry);
        batchSize = DistributionSummary.builder("flashstock.relay.batch.size")
                .description("Rows per claim (empty claims are not recorded)")
                .baseUnit("rows")
                .publishPercentileHistogram()
                .maximumExpectedValue((double) settings.batchSize())
                .register(registry);
        published = Counter.builder("flashstock.relay.published")
                .description("Rows acknowledged by the broker and marked SENT")
                .baseUnit("rows")
                .register(registry);
        retries = Counter.builder("flashstock.relay.retries")
                .description("Failed sends put back for another attempt after a backoff")
                .baseUnit("rows")
                .register(registry);
        dead = Counter.builder("flashstock.relay.marked.dead")
                .description("Rows this instance marked DEAD after their last allowed attempt")
                .baseUnit("rows")
                .register(registry);
    }

    void claimed(int rows) {
        batchSize.record(rows);
    }

    void published(List<BatchPublisher.Acked> acked) {
        for (BatchPublisher.Acked row : acked) {
            publishLatency.record(Duration.between(row.row().createdAt(), row.ackedAt()));
        }
        published.increment(acked.size());
    }

    void retried(int rows) {
        retries.increment(rows);
    }

    void died(int rows) {
        dead.increment(rows);
    }
}
