package io.flashstock.stock.consuming;

import io.flashstock.contract.ItemCodes;
import io.flashstock.contract.StockEvent;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.core.log.LogAccessor;
import org.springframework.kafka.support.KafkaUtils;
import org.springframework.kafka.support.serializer.DeserializationException;
import org.springframework.kafka.support.serializer.SerializationUtils;

import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A polled batch, each record with its verdict: an event to apply, or a record to dead-letter. A record is rejected
 * when its value could not be deserialized (the ErrorHandlingDeserializer left a null value and the exception in a
 * header; this includes JSON the event records' constructors refuse) or when the event cannot belong to the stock
 * ledger: its key, item code, generation or time is one order-api never writes.
 */
record Triage(List<Verdict> verdicts) {

    private static final LogAccessor LOG = new LogAccessor(LogFactory.getLog(Triage.class));

    /** A record and why it is rejected; {@code reason} is null for an event to apply. */
    record Verdict(ConsumerRecord<String, StockEvent> record, Exception reason) {

        boolean rejected() {
            return reason != null;
        }
    }

    /**
     * The times an event may carry: from the start of the dedupe window (an older event may be a redelivery whose
     * {@code processed_event} row is already deleted) to a little ahead of this clock (order-api's clock may be ahead
     * by that much). Anything outside is refused before it reaches the database, whose DATETIME columns hold only
     * the years 1000 to 9999.
     */
    record Times(Instant earliest, Instant latest) {
    }

    static Triage of(List<ConsumerRecord<String, StockEvent>> records, Times times) {
        return new Triage(records.stream().map(record -> new Verdict(record, problem(record, times))).toList());
    }

    List<StockEvent> events() {
        return verdicts.stream().filter(v -> !v.rejected()).map(v -> v.record().value()).toList();
    }

    List<Verdict> rejected() {
        return verdicts.stream().filter(Verdict::rejected).toList();
    }

    Set<String> itemCodes() {
        Set<String> itemCodes = new TreeSet<>();
        events().forEach(event -> itemCodes.add(event.itemCode()));
        return itemCodes;
    }

    private static Exception problem(ConsumerRecord<String, StockEvent> record, Times times) {
        DeserializationException failed = SerializationUtils.getExceptionFromHeader(record,
                KafkaUtils.VALUE_DESERIALIZER_EXCEPTION_HEADER, LOG);
        if (failed != null) {
            return failed;
        }
        StockEvent event = record.value();
        if (event == null) {
            return new InvalidStockEventException("record has no value");
        }
        if (!ItemCodes.isStorable(event.itemCode())) {
            return new InvalidStockEventException(
                    "item code is not 1 to " + ItemCodes.MAX_LENGTH + " printable ascii characters");
        }
        if (!event.itemCode().equals(record.key())) {
            return new InvalidStockEventException(
                    "record key " + record.key() + " differs from item code " + event.itemCode());
        }
        if (event.generation() < 1) {
            return new InvalidStockEventException("generation " + event.generation() + " is below 1, the first");
        }
        if (event.occurredAt().isBefore(times.earliest())) {
            return new InvalidStockEventException("occurredAt " + event.occurredAt() + " is before " + times.earliest()
                    + ", the start of the dedupe window: a redelivery that old could be applied twice");
        }
        if (event.occurredAt().isAfter(times.latest())) {
            return new InvalidStockEventException("occurredAt " + event.occurredAt() + " is after " + times.latest()
                    + ", further ahead of this clock than flashstock.consumer.max-clock-skew");
        }
        return null;
    }
}
