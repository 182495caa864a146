package io.flashstock.order.outbox;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockEvent;
import io.flashstock.contract.Utc;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.List;

/**
 * Writes events to {@code outbox_event}, from where outbox-relay publishes them. Always called inside the
 * transaction that writes what the event reports, so the row exists exactly when that change committed.
 */
@Component
public class Outbox {

    private static final String INSERT = """
            INSERT INTO outbox_event (event_id, aggregate_key, event_type, payload, status, attempts,
                                      available_at, created_at)
            VALUES (?, ?, ?, ?, ?, 0, ?, ?)""";

    private final JdbcTemplate jdbc;
    /** Written as the sealed interface, so the payload carries the {@code type} the consumer reads it by. */
    private final ObjectWriter eventWriter;

    public Outbox(JdbcTemplate jdbc, JsonMapper jsonMapper) {
        this.jdbc = jdbc;
        this.eventWriter = jsonMapper.writerFor(StockEvent.class);
    }

    public void append(StockEvent event, OutboxStatus status) {
        appendAll(List.of(event), List.of(status));
    }

    /** Appends several events with one batched statement (a multi-row insert, by the driver's rewrite). */
    public void appendAll(List<StockEvent> events, List<OutboxStatus> statuses) {
        List<Object[]> rows = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            StockEvent event = events.get(i);
            var at = Utc.toColumn(event.occurredAt());
            rows.add(new Object[]{event.eventId().toString(), event.itemCode(), event.type(), payload(event),
                    statuses.get(i).name(), at, at});
        }
        jdbc.batchUpdate(INSERT, rows);
    }

    public String payload(StockEvent event) {
        return eventWriter.writeValueAsString(event);
    }
}
