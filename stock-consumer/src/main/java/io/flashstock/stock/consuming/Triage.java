package io.flashstock.stock.consuming;

import io.flashstock.contract.ItemCodes;
import io.flashstock.contract.StockEvent;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.core.log.LogAccessor;
import org.springframework.kafka.support.KafkaUtils;
import org.springframework.kafka.support.serializer.DeserializationException;
import org.springframework.kafka.support.serializer.SerializationUtils;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A polled batch split into the events to apply and the records to dead-letter. A record is rejected when its
 * value could not be deserialized (the ErrorHandlingDeserializer left a null value and the exception in a header;
 * this includes JSON the event records' constructors refuse) or when the event cannot belong to the stock ledger.
 */
record Triage(List<StockEvent> events, List<Rejected> rejected) {

    private static final LogAccessor LOG = new LogAccessor(LogFactory.getLog(Triage.class));

    record Rejected(ConsumerRecord<String, StockEvent> record, Exception reason) {
    }

    static Triage of(List<ConsumerRecord<String, StockEvent>> records) {
        List<StockEvent> events = new ArrayList<>(records.size());
        List<Rejected> rejected = new ArrayList<>();
        for (ConsumerRecord<String, StockEvent> record : records) {
            Exception problem = problem(record);
            if (problem == null) {
                events.add(record.value());
            } else {
                rejected.add(new Rejected(record, problem));
            }
        }
        return new Triage(events, rejected);
    }

    Set<String> itemCodes() {
        Set<String> itemCodes = new TreeSet<>();
        events.forEach(event -> itemCodes.add(event.itemCode()));
        return itemCodes;
    }

    private static Exception problem(ConsumerRecord<String, StockEvent> record) {
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
        if (event.generation() < 0) {
            return new InvalidStockEventException("negative generation " + event.generation());
        }
        return null;
    }
}
