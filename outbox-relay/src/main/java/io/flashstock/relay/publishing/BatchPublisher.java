package io.flashstock.relay.publishing;

import io.flashstock.contract.StockTopics;
import io.flashstock.relay.RelaySettings;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends a claimed batch to Kafka in id order through the one shared idempotent producer, then waits for
 * every acknowledgement, at most {@link ProducerTuning#sendDeadline()}.
 */
@Component
public class BatchPublisher {

    private final KafkaTemplate<String, String> kafka;
    private final String topic;
    private final ProducerTuning producer;
    private final Clock clock;

    public BatchPublisher(KafkaTemplate<String, String> kafka, RelaySettings settings, ProducerTuning producer,
                          Clock clock) {
        this.kafka = kafka;
        this.topic = settings.topic();
        this.producer = producer;
        this.clock = clock;
    }

    public Outcome publish(List<OutboxRow> rows) {
        List<InFlight> inFlight = new ArrayList<>(rows.size());
        List<Failed> failed = new ArrayList<>();
        Throwable brokerTrouble = null;
        for (OutboxRow row : rows) {
            if (brokerTrouble != null) {
                // each further send would block max.block.ms again, and sending later rows of a key
                // without the failed earlier ones would only break their order
                failed.add(new Failed(row, brokerTrouble));
                continue;
            }
            try {
                inFlight.add(new InFlight(row, kafka.send(record(row)).thenApply(result -> clock.instant())));
            } catch (RuntimeException e) {
                Throwable cause = kafkaCause(e);
                failed.add(new Failed(row, cause));
                if (cause instanceof RetriableException) {
                    brokerTrouble = cause;
                }
            }
        }
        List<Acked> acked = new ArrayList<>(inFlight.size());
        long deadline = System.nanoTime() + producer.sendDeadline().toNanos();
        for (InFlight sent : inFlight) {
            try {
                long remaining = Math.max(0, deadline - System.nanoTime());
                acked.add(new Acked(sent.row(), sent.ack().get(remaining, TimeUnit.NANOSECONDS)));
            } catch (ExecutionException e) {
                failed.add(new Failed(sent.row(), kafkaCause(e.getCause())));
            } catch (TimeoutException e) {
                // the producer should have reported by now; treat the record as not sent (it may still
                // arrive, which is a duplicate the consumer skips, never a loss)
                failed.add(new Failed(sent.row(), new org.apache.kafka.common.errors.TimeoutException(
                        "no acknowledgement within " + producer.sendDeadline())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failed.add(new Failed(sent.row(), e));
            }
        }
        return new Outcome(acked, failed);
    }

    private ProducerRecord<String, String> record(OutboxRow row) {
        List<Header> headers = List.of(
                new RecordHeader(StockTopics.EVENT_ID_HEADER, row.eventId().getBytes(StandardCharsets.UTF_8)),
                new RecordHeader(StockTopics.EVENT_TYPE_HEADER, row.eventType().getBytes(StandardCharsets.UTF_8)));
        return new ProducerRecord<>(topic, null, row.key(), row.payload(), headers);
    }

    /** The Kafka client's own exception under spring-kafka's and the futures' wrappers. */
    static Throwable kafkaCause(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof org.springframework.kafka.KafkaException || cause instanceof CompletionException
                || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** What became of a batch: every row is in exactly one of the two lists. */
    public record Outcome(List<Acked> acked, List<Failed> failed) {
    }

    public record Acked(OutboxRow row, Instant ackedAt) {
    }

    /**
     * A row the broker did not acknowledge.
     *
     * @param cause the Kafka client's exception; a {@link RetriableException} points at the broker or the
     *              network rather than at the record
     */
    public record Failed(OutboxRow row, Throwable cause) {

        public boolean brokerTrouble() {
            return cause instanceof RetriableException;
        }

        public String describe() {
            return cause.getClass().getSimpleName() + ": " + cause.getMessage();
        }
    }

    private record InFlight(OutboxRow row, CompletableFuture<Instant> ack) {
    }
}
