package io.flashstock.stock.consuming;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

import java.time.Duration;

/**
 * Liveness of the listener (health component {@code batchProgress}, in the liveness group): DOWN while a batch has
 * been running longer than {@code flashstock.consumer.stuck-after}, so that a listener hung on a call without a
 * timeout gets its process restarted; its partitions then go to another member, and the batch is delivered again.
 */
@Component
class BatchProgressHealthIndicator implements HealthIndicator {

    private final BatchesInFlight batches;
    private final Duration stuckAfter;

    BatchProgressHealthIndicator(BatchesInFlight batches, ConsumerSettings properties) {
        this.batches = batches;
        this.stuckAfter = properties.stuckAfter();
    }

    @Override
    public Health health() {
        Duration oldest = batches.oldest().orElse(Duration.ZERO);
        Health.Builder health = oldest.compareTo(stuckAfter) > 0 ? Health.down() : Health.up();
        return health.withDetail("oldestBatchInFlight", oldest.toString())
                .withDetail("stuckAfter", stuckAfter.toString()).build();
    }
}
