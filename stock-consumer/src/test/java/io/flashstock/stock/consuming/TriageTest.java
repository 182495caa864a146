package io.flashstock.stock.consuming;

import io.flashstock.contract.StockDeducted;
import io.flashstock.contract.StockEvent;
import io.flashstock.contract.StockReset;
import io.flashstock.stock.support.Events;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.support.serializer.ErrorHandlingDeserializer;
import org.springframework.kafka.support.serializer.JacksonJsonDeserializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class TriageTest {

    private long offset;

    private static final Instant NOW = Instant.parse("2026-11-23T22:00:00Z");
    private static final Instant EARLIEST = NOW.minus(Duration.ofDays(15));

    @Test
    void keepsValidEventsInOrderAndRejectsTheRest() {
        StockEvent first = Events.deducted("item-a", 1, 1);
        StockEvent second = Events.reset("item-b", 5, 2);
        StockEvent otherItem = Events.deducted("item-c", 1, 1);
        StockEvent badItemCode = Events.deducted("item é", 1, 1);
        StockEvent negativeGeneration = Events.deducted("item-a", 1, -1);
        StockEvent generationZero = Events.reset("item-a", 1, 0);

        Triage triage = Triage.of(List.of(
                record("item-a", at(first, NOW)),
                record("item-a", otherItem),
                undeserializable("item-a", "{\"type\":\"StockDeducted\",\"quantity\":0}"),
                record("item-a", null),
                record("item é", badItemCode),
                record("item-a", negativeGeneration),
                record("item-a", generationZero),
                record("item-b", at(second, Triage.LAST_STORABLE))), EARLIEST);

        assertThat(triage.events()).extracting(StockEvent::eventId).containsExactly(first.eventId(), second.eventId());
        assertThat(triage.itemCodes()).containsExactly("item-a", "item-b");
        assertThat(triage.verdicts()).hasSize(8);
        assertThat(triage.rejected()).extracting(r -> r.record().offset()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        assertThat(triage.rejected()).extracting(r -> r.reason().getMessage()).satisfiesExactly(
                m -> assertThat(m).contains("differs from item code item-c"),
                m -> assertThat(m).isNotBlank(),
                m -> assertThat(m).isEqualTo("record has no value"),
                m -> assertThat(m).contains("printable ascii"),
                m -> assertThat(m).contains("generation -1 is below 1"),
                m -> assertThat(m).contains("generation 0 is below 1"));
    }

    @Test
    void rejectsTimesBeforeTheDedupeWindowOrPastTheDatabaseRangeButNotAheadOfTheClock() {
        Triage triage = Triage.of(List.of(
                record("item-a", at(Events.deducted("item-a", 1, 1), EARLIEST)),
                record("item-a", at(Events.deducted("item-a", 1, 1), EARLIEST.minusMillis(1))),
                record("item-a", at(Events.reset("item-a", 1, 1), NOW.plus(Duration.ofDays(1)))),
                record("item-a", at(Events.reset("item-a", 1, 1), Triage.LAST_STORABLE.plusNanos(1000))),
                record("item-a", at(Events.reset("item-a", 1, 1), Instant.parse("+10000-01-01T00:00:00Z")))),
                EARLIEST);

        assertThat(triage.events()).extracting(StockEvent::occurredAt)
                .containsExactly(EARLIEST, NOW.plus(Duration.ofDays(1)));
        assertThat(triage.rejected()).extracting(r -> r.reason().getMessage()).satisfiesExactly(
                m -> assertThat(m).contains("start of the dedupe window"),
                m -> assertThat(m).contains("last time the database's DATETIME columns hold"),
                m -> assertThat(m).contains("+10000-01-01T00:00:00Z"));
    }

    private static StockEvent at(StockEvent event, Instant occurredAt) {
        if (event instanceof StockDeducted d) {
            return new StockDeducted(d.eventId(), d.orderCode(), d.itemCode(), d.userId(), d.quantity(),
                    d.generation(), occurredAt);
        }
        StockReset r = (StockReset) event;
        return new StockReset(r.eventId(), r.itemCode(), r.quantity(), r.perUserLimit(), r.generation(), occurredAt);
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
