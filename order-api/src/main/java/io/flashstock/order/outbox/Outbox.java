package io.flashstock.order.outbox;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockEvent;
import io.flashstock.order.config.Utc;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;

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

    private final JdbcClient jdbc;
    /** Written as the sealed interface, so the payload carries the {@code type} the consumer reads it by. */
    private final ObjectWriter eventWriter;

    public Outbox(JdbcClient jdbc, JsonMapper jsonMapper) {
        this.jdbc = jdbc;
        this.eventWriter = jsonMapper.writerFor(StockEvent.class);
    }

    public void append(StockEvent event, OutboxStatus status) {
        var at = Utc.toColumn(event.occurredAt());
        jdbc.sql(INSERT)
                .params(event.eventId().toString(), event.itemCode(), event.type(), payload(event), status.name(), at, at)
                .update();
    }

    public String payload(StockEvent event) {
        return eventWriter.writeValueAsString(event);
    }
}
