package io.flashstock.stock.ledger;

import io.flashstock.contract.StockDeducted;
import io.flashstock.contract.StockReset;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.time.Instant;
import java.util.List;

import static io.flashstock.stock.ledger.UtcTimes.toUtc;

/** The {@code stock_anomaly} table: consumed events that were not applied. */
@Component
class Anomalies {

    private static final int DETAIL_LENGTH = 255;

    private final JdbcTemplate jdbcTemplate;

    Anomalies(JdbcTemplate jdbcTemplate) {
        this.jdbcTemplate = jdbcTemplate;
    }

    void record(List<Anomaly> anomalies, Instant at) {
        if (anomalies.isEmpty()) {
            return;
        }
        var recordedAt = toUtc(at);
        jdbcTemplate.batchUpdate("""
                        INSERT INTO stock_anomaly (event_id, item_code, kind, event_type, event_generation, quantity,
                                                   detail, occurred_at, recorded_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                anomalies.stream().map(a -> new Object[]{
                        a.event().eventId().toString(), a.event().itemCode(), a.kind().name(), a.event().type(),
                        a.event().generation(), quantity(a), truncate(a.detail()), toUtc(a.event().occurredAt()),
                        recordedAt}).toList());
    }

    private static long quantity(Anomaly anomaly) {
        if (anomaly.event() instanceof StockDeducted deducted) {
            return deducted.quantity();
        }
        return ((StockReset) anomaly.event()).quantity();
    }

    private static String truncate(String detail) {
        return detail.length() <= DETAIL_LENGTH ? detail : detail.substring(0, DETAIL_LENGTH);
    }
}
