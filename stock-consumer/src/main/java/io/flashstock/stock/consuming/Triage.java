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
 * ledger: its key, item code or generation is one order-api never writes, or its time is older than the dedupe window
 * or past what the database holds.
 */
record Triage(List<Verdict> verdicts) {

    private static final LogAccessor LOG = new LogAccessor(LogFactory.getLog(Triage.class));

    /** A record and why it is rejected; {@code reason} is null for an event to apply. */
    record Verdict(ConsumerRecord<String, StockEvent> record, Exception reason) {

        boolean rejected() {
            return reason != null;
        }
    }

    /** The last time the database's DATETIME(6) columns hold. */
    static final Instant LAST_STORABLE = Instant.parse("9999-12-31T23:59:59.999999Z");

    /**
     * @param earliest the start of the dedupe window: an older event may be a redelivery whose {@code processed_event}
     *                 row is already deleted. A time ahead of this clock is no reason to refuse an event: it is
     *                 order-api's clock that stamped a committed order (see {@code ProcessedEvents#record} for how
     *                 such an event keeps its dedupe row long enough). Only a time the database cannot hold, past
     *                 {@link #LAST_STORABLE}, is refused before it reaches the database.
     */
    static Triage of(List<ConsumerRecord<String, StockEvent>> records, Instant earliest) {
        return new Triage(records.stream().map(record -> new Verdict(record, problem(record, earliest))).toList());
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

    private static Exception problem(ConsumerRecord<String, StockEvent> record, Instant earliest) {
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
        if (event.occurredAt().isBefore(earliest)) {
            return new InvalidStockEventException("occurredAt " + event.occurredAt() + " is before " + earliest
                    + ", the start of the dedupe window: a redelivery that old could be applied twice");
        }
        if (event.occurredAt().isAfter(LAST_STORABLE)) {
            return new InvalidStockEventException("occurredAt " + event.occurredAt() + " is after " + LAST_STORABLE
                    + ", the last time the database's DATETIME columns hold");
        }
        return null;
    }
}
