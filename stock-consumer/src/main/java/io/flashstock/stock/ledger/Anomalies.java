package io.flashstock.stock.ledger;

import io.flashstock.contract.StockDeducted;
import io.flashstock.contract.StockReset;
import io.flashstock.contract.Utc;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.time.Instant;
import java.util.List;

/**
 * The {@code stock_anomaly} table: consumed events that were not applied. Deductions of kind
 * {@link AnomalyKind#UNKNOWN_GENERATION} are held there until their generation's reset arrives.
 */
@Component
class Anomalies {

    private static final int DETAIL_LENGTH = 255;

    /** A deduction held for its generation's reset: its row and units. */
    record Held(long id, long quantity) {
    }

    private final JdbcTemplate jdbcTemplate;

    Anomalies(JdbcTemplate jdbcTemplate) {
        this.jdbcTemplate = jdbcTemplate;
    }

    void record(List<Anomaly> anomalies, Instant at) {
        if (anomalies.isEmpty()) {
            return;
        }
        var recordedAt = Utc.toColumn(at);
        jdbcTemplate.batchUpdate("""
                        INSERT INTO stock_anomaly (event_id, item_code, kind, event_type, event_generation, quantity,
                                                   detail, occurred_at, recorded_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                anomalies.stream().map(a -> new Object[]{
                        a.event().eventId().toString(), a.event().itemCode(), a.kind().name(), a.event().type(),
                        a.event().generation(), quantity(a), truncate(a.detail()), Utc.toColumn(a.event().occurredAt()),
                        recordedAt}).toList());
    }

    /** The deductions held for this generation of the item, in the order they were recorded. */
    List<Held> heldFor(String itemCode, long generation) {
        return jdbcTemplate.query("""
                        SELECT id, quantity FROM stock_anomaly
                         WHERE item_code = ? AND kind = 'UNKNOWN_GENERATION' AND event_generation = ? ORDER BY id""",
                (rs, n) -> new Held(rs.getLong("id"), rs.getLong("quantity")), itemCode, generation);
    }

    /** Held deductions that have now been applied: they are anomalies no more. */
    void release(List<Held> held) {
        jdbcTemplate.batchUpdate("DELETE FROM stock_anomaly WHERE id = ?",
                held.stream().map(h -> new Object[]{h.id()}).toList());
    }

    /** Held deductions that cannot be applied after all. */
    void reclassify(List<Held> held, AnomalyKind kind, String detail) {
        jdbcTemplate.batchUpdate("UPDATE stock_anomaly SET kind = ?, detail = ? WHERE id = ?",
                held.stream().map(h -> new Object[]{kind.name(), truncate(detail), h.id()}).toList());
    }

    /** Held deductions of generations before {@code generation}: a newer reset replaced their baseline first. */
    void staleBefore(String itemCode, long generation) {
        jdbcTemplate.update("""
                        UPDATE stock_anomaly SET kind = 'STALE', detail = ?
                         WHERE item_code = ? AND kind = 'UNKNOWN_GENERATION' AND event_generation < ?""",
                truncate("its reset never came before generation " + generation + " replaced it"), itemCode, generation);
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
