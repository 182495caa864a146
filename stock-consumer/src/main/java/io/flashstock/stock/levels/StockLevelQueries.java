package io.flashstock.stock.levels;

import io.flashstock.contract.Utc;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** The read side of the stock database, for the HTTP API and the reconciliation report. */
@Component
class StockLevelQueries {

    private static final String LEVELS = """
            SELECT l.item_code, l.generation, l.baseline, l.quantity, l.events_applied, l.last_applied_at,
                   (SELECT COUNT(*) FROM stock_anomaly a WHERE a.item_code = l.item_code) AS anomalies
              FROM stock_level l""";

    private static final String ANOMALIES = """
            SELECT event_id, item_code, kind, event_type, event_generation, quantity, detail, occurred_at, recorded_at
              FROM stock_anomaly""";

    private static final RowMapper<StockLevelView> LEVEL = (rs, n) -> new StockLevelView(
            rs.getString("item_code"), rs.getLong("generation"), rs.getLong("baseline"), rs.getLong("quantity"),
            rs.getLong("events_applied"), Utc.fromColumn(rs.getObject("last_applied_at", LocalDateTime.class)),
            rs.getLong("anomalies"));

    private static final RowMapper<AnomalyView> ANOMALY = (rs, n) -> new AnomalyView(
            UUID.fromString(rs.getString("event_id")), rs.getString("item_code"), rs.getString("kind"),
            rs.getString("event_type"), rs.getLong("event_generation"), rs.getLong("quantity"),
            rs.getString("detail"), Utc.fromColumn(rs.getObject("occurred_at", LocalDateTime.class)),
            Utc.fromColumn(rs.getObject("recorded_at", LocalDateTime.class)));

    private final JdbcClient jdbc;

    StockLevelQueries(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    Optional<StockLevelView> find(String itemCode) {
        return jdbc.sql(LEVELS + " WHERE l.item_code = ?").param(itemCode).query(LEVEL).optional();
    }

    List<StockLevelView> all() {
        return jdbc.sql(LEVELS + " ORDER BY l.item_code").query(LEVEL).list();
    }

    List<AnomalyView> anomalies(String itemCode, int limit) {
        if (itemCode == null) {
            return jdbc.sql(ANOMALIES + " ORDER BY id LIMIT ?").param(limit).query(ANOMALY).list();
        }
        return jdbc.sql(ANOMALIES + " WHERE item_code = ? ORDER BY id LIMIT ?")
                .param(itemCode).param(limit).query(ANOMALY).list();
    }
}
