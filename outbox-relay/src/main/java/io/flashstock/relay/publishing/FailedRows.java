package io.flashstock.relay.publishing;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.relay.RelaySettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The {@link OutboxRelay} loop's last step for the rows of a batch that the broker did not acknowledge. */
class FailedRows {

    // the loop's own log category, as before this step had a class of its own
    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

    private final RelaySettings settings;
    private final OutboxTable outbox;
    private final RelayMetrics metrics;

    FailedRows(RelaySettings settings, OutboxTable outbox, RelayMetrics metrics) {
        this.settings = settings;
        this.outbox = outbox;
        this.metrics = metrics;
    }

    /**
     * Puts failed rows back with a backoff, or marks them DEAD after their last attempt. Only a failure of the
     * record itself counts towards DEAD (the row's {@code failures}, not its claims): when the broker was the
     * problem the row waits however long the outage lasts, and afterwards still has every attempt of its own.
     * The loop waits until every row the broker failed is due again, since claiming newer rows meanwhile would
     * publish them ahead of the failed ones of the same key.
     */
    Duration record(int batchSize, List<BatchPublisher.Failed> failed) {
        List<OutboxTable.Failure> failures = new ArrayList<>(failed.size());
        Duration retryPause = Duration.ZERO;
        for (BatchPublisher.Failed failure : failed) {
            OutboxRow row = failure.row();
            if (failure.brokerTrouble()) {
                Duration backoff = settings.backoff().after(row.attempts());
                failures.add(new OutboxTable.Failure(row.id(), OutboxStatus.NEW, backoff, failure.describe(), false));
                if (backoff.compareTo(retryPause) > 0) {
                    retryPause = backoff;
                }
            } else {
                int ownFailures = row.failures() + 1;
                failures.add(ownFailures >= settings.maxAttempts()
                        ? new OutboxTable.Failure(row.id(), OutboxStatus.DEAD, Duration.ZERO, failure.describe(), true)
                        : new OutboxTable.Failure(row.id(), OutboxStatus.NEW, settings.backoff().after(ownFailures),
                                failure.describe(), true));
            }
        }
        boolean[] applied = outbox.recordFailures(settings.instanceId(), failures);
        int retried = 0;
        int dead = 0;
        for (int i = 0; i < failures.size(); i++) {
            if (!applied[i]) {
                continue;
            }
            if (failures.get(i).status() == OutboxStatus.DEAD) {
                dead++;
                OutboxRow row = failed.get(i).row();
                log.error("outbox row {} (event {}, key {}, {}) is DEAD after {} failures of its own ({} claims): {}",
                        row.id(), row.eventId(), row.key(), row.eventType(), row.failures() + 1, row.attempts(),
                        failures.get(i).error());
            } else {
                retried++;
            }
        }
        metrics.retried(retried);
        metrics.died(dead);
        log.warn("{} of {} rows not acknowledged ({} to retry, {} DEAD); first: event {}: {}", failed.size(),
                batchSize, retried, dead, failed.get(0).row().eventId(), failed.get(0).describe());
        return retryPause;
    }
}
