package io.flashstock.relay.publishing;

import io.flashstock.relay.RelaySettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The relay loop, on one dedicated thread: claim a batch (short transaction, lease), publish it, wait for
 * the acknowledgements, mark the acknowledged rows SENT and put the others back for a retry or mark them
 * DEAD. A full batch is followed by the next claim at once, a short or empty one by
 * {@link RelaySettings#idleInterval()}. Every cycle that ends, failed or not, beats the {@link LoopHeartbeat},
 * which the liveness check reads.
 * <p>
 * One thread and one producer per instance keep a key's rows in id order on its partition; see
 * docs/outbox-relay.md for what happens to that order around a failed send.
 */
@Component
public class OutboxRelay implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

    private final RelaySettings settings;
    private final OutboxTable outbox;
    private final BatchPublisher publisher;
    private final RelayMetrics metrics;
    private final LoopHeartbeat heartbeat;
    private final FailedRows failedRows;
    private final Duration stopTimeout;

    private volatile boolean running;
    private volatile Thread worker;

    public OutboxRelay(RelaySettings settings, OutboxTable outbox, BatchPublisher publisher, RelayMetrics metrics,
                       LoopHeartbeat heartbeat, ProducerTuning producer) {
        if (!producer.acknowledgedByAllReplicas()) {
            throw new IllegalStateException("the relay needs acks=all and enable.idempotence=true, got acks="
                    + producer.acks() + ", enable.idempotence=" + producer.idempotence()
                    + ": a row is marked SENT only once every in-sync replica has it");
        }
        if (settings.lease().compareTo(producer.sendDeadline()) <= 0) {
            throw new IllegalStateException("flashstock.relay.lease (" + settings.lease()
                    + ") must be longer than max.block.ms + delivery.timeout.ms (" + producer.sendDeadline()
                    + "), or rows still in flight would be claimed again by another relay");
        }
        if (settings.stallTimeout().compareTo(producer.sendDeadline()) <= 0) {
            throw new IllegalStateException("flashstock.relay.stall-timeout (" + settings.stallTimeout()
                    + ") must be longer than max.block.ms + delivery.timeout.ms (" + producer.sendDeadline()
                    + "), or a slow send that works would show the relay as not live");
        }
        this.settings = settings;
        this.outbox = outbox;
        this.publisher = publisher;
        this.metrics = metrics;
        this.heartbeat = heartbeat;
        this.failedRows = new FailedRows(settings, outbox, metrics);
        // a batch in progress ends within the send deadline; the lease is longer still
        this.stopTimeout = settings.lease();
    }

    @Override
    public void start() {
        running = true;
        heartbeat.loopStarted();
        Thread thread = new Thread(this::loop, "outbox-relay");
        // a stop that times out (database unreachable) must not keep the JVM alive; the lease covers the rows
        thread.setDaemon(true);
        worker = thread;
        thread.start();
    }

    /**
     * Lets the batch in progress finish (so its rows are marked, not left to their lease). In the default
     * phase this runs before the web server stops and long before the producer factory (lowest phase)
     * closes the producer; the data source closes after all lifecycles.
     */
    @Override
    public void stop() {
        running = false;
        Thread thread = worker;
        if (thread == null) {
            return;
        }
        LockSupport.unpark(thread);
        try {
            thread.join(stopTimeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("relay loop still busy after {}; its claimed rows go to another relay when the lease ends",
                    stopTimeout);
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** False when the loop thread has ended although the relay should be running (an Error killed it). */
    public boolean loopAlive() {
        Thread thread = worker;
        return !running || (thread != null && thread.isAlive());
    }

    private void loop() {
        int failuresInARow = 0;
        while (running) {
            Duration pause;
            try {
                pause = relayOneBatch();
                failuresInARow = 0;
            } catch (RuntimeException e) {
                failuresInARow++;
                pause = settings.backoff().after(failuresInARow);
                log.warn("relay batch failed ({} in a row), next claim in {}: {}", failuresInARow, pause,
                        e.toString(), e);
            }
            heartbeat.cycleEnded(pause);
            if (running && !pause.isZero()) {
                LockSupport.parkNanos(pause.toNanos());
            }
        }
    }

    /** One claim, publish and bookkeeping round; returns how long to wait before the next claim. */
    Duration relayOneBatch() {
        List<OutboxRow> batch = outbox.claim(settings.instanceId(), settings.batchSize(), settings.lease());
        if (batch.isEmpty()) {
            return settings.idleInterval();
        }
        metrics.claimed(batch.size());
        BatchPublisher.Outcome outcome = publisher.publish(batch);
        if (!outcome.acked().isEmpty()) {
            outbox.markSent(outcome.acked().stream().map(acked -> acked.row().id()).toList());
            metrics.published(outcome.acked());
        }
        Duration pause = batch.size() == settings.batchSize() ? Duration.ZERO : settings.idleInterval();
        if (!outcome.failed().isEmpty()) {
            Duration retryPause = failedRows.record(batch.size(), outcome.failed());
            if (retryPause.compareTo(pause) > 0) {
                pause = retryPause;
            }
        }
        return pause;
    }
}
