package io.flashstock.stock.ledger;

import io.flashstock.contract.StockEvent;
import io.flashstock.contract.Utc;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/** The {@code processed_event} dedupe table: an event id in it has had its effect committed. */
@Component
class ProcessedEvents {

    private final JdbcClient jdbc;
    private final JdbcTemplate jdbcTemplate;

    ProcessedEvents(JdbcClient jdbc, JdbcTemplate jdbcTemplate) {
        this.jdbc = jdbc;
        this.jdbcTemplate = jdbcTemplate;
    }

    Set<UUID> alreadyProcessed(Collection<UUID> eventIds) {
        if (eventIds.isEmpty()) {
            return Set.of();
        }
        List<String> ids = eventIds.stream().map(UUID::toString).toList();
        return jdbc.sql("SELECT event_id FROM processed_event WHERE event_id IN (:ids)")
                .param("ids", ids)
                .query(String.class).stream()
                .map(UUID::fromString)
                .collect(Collectors.toSet());
    }

    /**
     * Inserts one row per event. A concurrent consumer inserting the same id makes this fail with a duplicate
     * key, which rolls the batch back; the retry then sees the id as processed.
     * <p>
     * The row's {@code processed_at} is {@code at}, or the event's {@code occurredAt} when that is later (order-api's
     * clock ahead of this one). Retention deletes a row once {@code processed_at} is older than the dedupe window, and
     * triage lets an event in until its {@code occurredAt} is that old: so a redelivery the triage lets in always
     * finds the row of its first delivery, whatever the two clocks said.
     */
    void record(List<StockEvent> events, Instant at) {
        if (events.isEmpty()) {
            return;
        }
        jdbcTemplate.batchUpdate("INSERT INTO processed_event (event_id, item_code, processed_at) VALUES (?, ?, ?)",
                events.stream().map(e -> new Object[]{e.eventId().toString(), e.itemCode(),
                        Utc.toColumn(e.occurredAt().isAfter(at) ? e.occurredAt() : at)}).toList());
    }
}
