package io.flashstock.stock.consuming;

import io.flashstock.contract.StockEvent;
import io.flashstock.contract.StockTopics;
import io.flashstock.stock.ledger.LedgerOutcome;
import io.flashstock.stock.retention.RetentionSettings;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.support.KafkaUtils;
import org.springframework.stereotype.Component;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Takes the dead-letter topic's records through the listener's path again: the same deserializer, the same triage
 * (with today's clock and rules), the same locks and ledger transaction. The dedupe table makes it idempotent: an
 * event already processed, by the listener or by an earlier replay, is skipped and counted. Records still refused
 * stay where they are and are reported.
 * <p>
 * It reads every partition from its beginning up to the end offsets seen when it starts, with a consumer of its
 * own that is assigned the partitions and never commits: the dead-letter topic itself is the list of what was
 * refused, and a replay changes nothing in it, so the next replay sees the same records and the same verdicts
 * (those now applied as already applied).
 */
@Component
class DeadLetterReplay {

    private static final Logger log = LoggerFactory.getLogger(DeadLetterReplay.class);
    private static final Duration POLL = Duration.ofMillis(500);
    private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(10);
    /** How long the broker may hand over nothing while records up to the end offsets are still unread. */
    private static final Duration STALL = Duration.ofSeconds(30);
    /** Records still dead that a report names; the count is exact beyond. */
    private static final int NAMED_DEAD = 100;

    private final ConsumerFactory<?, ?> consumerFactory;
    private final EventApplier applier;
    private final String deadLetterTopic;
    private final Duration dedupeWindow;
    private final Clock clock;

    DeadLetterReplay(ConsumerFactory<?, ?> consumerFactory, EventApplier applier, ConsumerSettings consumer,
                     RetentionSettings retention, Clock clock) {
        this.consumerFactory = consumerFactory;
        this.applier = applier;
        this.deadLetterTopic = StockTopics.deadLetterTopic(consumer.topic());
        this.dedupeWindow = retention.processedEvents();
        this.clock = clock;
    }

    /**
     * One replay at a time: two would only race for the same rows and split the counts between them.
     *
     * @throws ReplayStoppedException when a record failed for a transient reason (database or Redis down, a lock
     *                                wait ran out); the records before it are applied, a new replay resumes
     */
    synchronized ReplayReport replay() {
        var report = new Report();
        try (Consumer<String, StockEvent> consumer = createConsumer()) {
            List<TopicPartition> partitions = consumer.partitionsFor(deadLetterTopic, METADATA_TIMEOUT).stream()
                    .map(p -> new TopicPartition(deadLetterTopic, p.partition())).toList();
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, METADATA_TIMEOUT);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long lastProgress = System.nanoTime();
            while (!reached(consumer, ends)) {
                List<ConsumerRecord<String, StockEvent>> records = new ArrayList<>();
                consumer.poll(POLL).forEach(record -> {
                    if (record.offset() < ends.get(new TopicPartition(record.topic(), record.partition()))) {
                        records.add(record);
                    }
                });
                if (!records.isEmpty()) {
                    replay(records, report);
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > STALL.toNanos()) {
                    throw new ReplayStoppedException("no record of " + deadLetterTopic + " arrived for " + STALL
                            + " before its end offsets " + ends + " were reached", report.build(), null);
                }
            }
        }
        ReplayReport done = report.build();
        log.info("replayed {}: {}", deadLetterTopic, done.summary());
        return done;
    }

    @SuppressWarnings("unchecked")
    private Consumer<String, StockEvent> createConsumer() {
        // the listener's group id is kept but never joined (assign) nor committed to
        return (Consumer<String, StockEvent>) consumerFactory.createConsumer(null, "dead-letter-replay");
    }

    private static boolean reached(Consumer<?, ?> consumer, Map<TopicPartition, Long> ends) {
        return ends.entrySet().stream().allMatch(end -> consumer.position(end.getKey()) >= end.getValue());
    }

    /** A polled batch, as the listener applies one: all events in one transaction, or one by one if it is refused. */
    private void replay(List<ConsumerRecord<String, StockEvent>> records, Report report) {
        report.read += records.size();
        Triage triage = Triage.of(records, clock.instant().minus(dedupeWindow));
        triage.rejected().forEach(verdict -> report.dead(verdict.record(), verdict.reason()));
        List<StockEvent> events = triage.events();
        if (events.isEmpty()) {
            return;
        }
        try {
            report.processed(applier.apply(triage.itemCodes(), events));
        } catch (RuntimeException batchFailure) {
            if (!RecordFailures.causedByRecord(batchFailure)) {
                throw stopped(records.get(0), batchFailure, report);
            }
            for (Triage.Verdict verdict : triage.verdicts()) {
                if (verdict.rejected()) {
                    continue;
                }
                StockEvent event = verdict.record().value();
                try {
                    report.processed(applier.apply(Set.of(event.itemCode()), List.of(event)));
                } catch (RuntimeException e) {
                    if (!RecordFailures.causedByRecord(e)) {
                        throw stopped(verdict.record(), e, report);
                    }
                    report.dead(verdict.record(), e);
                }
            }
        }
    }

    private ReplayStoppedException stopped(ConsumerRecord<?, ?> record, RuntimeException cause, Report report) {
        return new ReplayStoppedException("stopped at " + KafkaUtils.format(record) + ": "
                + NestedExceptionUtils.getMostSpecificCause(cause), report.build(), cause);
    }

    /** Counts as the replay goes, so that a replay that stops can still say what it did. */
    private static final class Report {
        private long read;
        private long replayed;
        private long anomalies;
        private long released;
        private long alreadyApplied;
        private long stillDead;
        private final List<ReplayReport.DeadRecord> named = new ArrayList<>();

        void processed(LedgerOutcome outcome) {
            replayed += outcome.applied().size() + outcome.anomalies().size();
            anomalies += outcome.anomalies().size();
            released += outcome.released();
            alreadyApplied += outcome.duplicates();
        }

        void dead(ConsumerRecord<String, StockEvent> record, Exception reason) {
            stillDead++;
            if (named.size() < NAMED_DEAD) {
                var eventId = record.headers().lastHeader(StockTopics.EVENT_ID_HEADER);
                named.add(new ReplayReport.DeadRecord(record.partition(), record.offset(), record.key(),
                        eventId == null ? null : new String(eventId.value(), StandardCharsets.UTF_8),
                        NestedExceptionUtils.getMostSpecificCause(reason).getMessage()));
            }
        }

        ReplayReport build() {
            return new ReplayReport(read, replayed, anomalies, released, alreadyApplied, stillDead, List.copyOf(named));
        }
    }
}
