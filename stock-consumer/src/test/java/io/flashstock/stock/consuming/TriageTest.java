package io.flashstock.stock.consuming;

import io.flashstock.contract.StockEvent;
import io.flashstock.stock.support.Events;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.support.serializer.ErrorHandlingDeserializer;
import org.springframework.kafka.support.serializer.JacksonJsonDeserializer;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class TriageTest {

    private long offset;

    @Test
    void keepsValidEventsInOrderAndRejectsTheRest() {
        StockEvent first = Events.deducted("item-a", 1, 1);
        StockEvent second = Events.reset("item-b", 5, 2);
        StockEvent otherItem = Events.deducted("item-c", 1, 1);
        StockEvent badItemCode = Events.deducted("item é", 1, 1);
        StockEvent negativeGeneration = Events.deducted("item-a", 1, -1);

        Triage triage = Triage.of(List.of(
                record("item-a", first),
                record("item-a", otherItem),
                undeserializable("item-a", "{\"type\":\"StockDeducted\",\"quantity\":0}"),
                record("item-a", null),
                record("item é", badItemCode),
                record("item-a", negativeGeneration),
                record("item-b", second)));

        assertThat(triage.events()).containsExactly(first, second);
        assertThat(triage.itemCodes()).containsExactly("item-a", "item-b");
        assertThat(triage.rejected()).extracting(r -> r.record().offset()).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(triage.rejected()).extracting(r -> r.reason().getMessage()).satisfiesExactly(
                m -> assertThat(m).contains("differs from item code item-c"),
                m -> assertThat(m).isNotBlank(),
                m -> assertThat(m).isEqualTo("record has no value"),
                m -> assertThat(m).contains("printable ascii"),
                m -> assertThat(m).contains("negative generation"));
    }

    private ConsumerRecord<String, StockEvent> record(String key, StockEvent value) {
        return new ConsumerRecord<>("t", 0, offset++, 0L, TimestampType.CREATE_TIME, 0, 0, key, value,
                new RecordHeaders(), Optional.empty());
    }

    /** What the consumer's ErrorHandlingDeserializer hands over for JSON the event records refuse. */
    private ConsumerRecord<String, StockEvent> undeserializable(String key, String json) {
        var headers = new RecordHeaders();
        try (var deserializer = new ErrorHandlingDeserializer<StockEvent>(
                new JacksonJsonDeserializer<>(StockEvent.class, false))) {
            StockEvent value = deserializer.deserialize("t", headers, json.getBytes(StandardCharsets.UTF_8));
            assertThat(value).isNull();
        }
        return new ConsumerRecord<>("t", 0, offset++, 0L, TimestampType.CREATE_TIME, 0, 0, key, null, headers,
                Optional.empty());
    }
}
