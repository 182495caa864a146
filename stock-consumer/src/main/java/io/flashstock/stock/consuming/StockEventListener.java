package io.flashstock.stock.consuming;

import io.flashstock.contract.StockEvent;
import io.flashstock.stock.retention.RetentionSettings;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.support.KafkaUtils;
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The batch listener. Valid events are applied in one transaction under the locks of their items; only then are
 * the rejected records dead-lettered, so a retry after a failed dead-letter send finds the events already
 * processed. Offsets are committed once it returns, after the commit.
 * <p>
 * When the database or the ledger refuses the batch (see {@link RecordFailures}), its records are taken again one
 * at a time, in order, each event in a transaction of its own, to find the one that fails alone. That one is
 * named to the error handler ({@link BatchListenerFailedException}), which commits the offsets before it (those
 * records are applied or dead-lettered by then), retries it a bounded number of times and then dead-letters it, so
 * the partition moves on. Every other failure names the batch's first record, and the whole batch is retried
 * without limit (see {@link ConsumingConfiguration}).
 */
@Component
class StockEventListener {

    private final EventApplier applier;
    private final DeadLetters deadLetters;
    private final BatchesInFlight inFlight;
    private final Duration dedupeWindow;
    private final Clock clock;

    StockEventListener(EventApplier applier, DeadLetters deadLetters, BatchesInFlight inFlight,
                       RetentionSettings retention, Clock clock) {
        this.applier = applier;
        this.deadLetters = deadLetters;
        this.inFlight = inFlight;
        this.dedupeWindow = retention.processedEvents();
        this.clock = clock;
    }

    @KafkaListener(id = ConsumingConfiguration.LISTENER_ID, idIsGroup = false,
            topics = "${flashstock.consumer.topic}", batch = "true")
    void onBatch(List<ConsumerRecord<String, StockEvent>> records) {
        Triage triage = Triage.of(records, clock.instant().minus(dedupeWindow));
        try (var batch = inFlight.start()) {
            applyBatch(triage);
        } catch (RuntimeException e) {
            if (!RecordFailures.causedByRecord(e)) {
                throw new BatchListenerFailedException("batch failed: " + mostSpecific(e), e, records.get(0));
            }
            try (var batch = inFlight.start()) {
                applyOneByOne(triage);
            }
        }
    }

    private void applyBatch(Triage triage) {
        List<StockEvent> events = triage.events();
        if (!events.isEmpty()) {
            applier.apply(triage.itemCodes(), events);
        }
        deadLetters.publish(triage.rejected());
    }

    /** Applies or dead-letters each record in order; the first event that fails names its record and stops. */
    private void applyOneByOne(Triage triage) {
        for (Triage.Verdict verdict : triage.verdicts()) {
            ConsumerRecord<String, StockEvent> record = verdict.record();
            try {
                if (verdict.rejected()) {
                    deadLetters.publish(List.of(verdict));
                } else {
                    applier.apply(Set.of(record.value().itemCode()), List.of(record.value()));
                }
            } catch (RuntimeException e) {
                throw new BatchListenerFailedException(KafkaUtils.format(record) + " failed: " + mostSpecific(e), e,
                        record);
            }
        }
    }

    private static String mostSpecific(Throwable e) {
        return NestedExceptionUtils.getMostSpecificCause(e).toString();
    }
}
