package io.flashstock.stock.ledger;

import io.flashstock.contract.StockReset;
import io.flashstock.contract.Utc;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import java.time.Instant;
import java.util.Optional;

/** The write side of {@code stock_level}: conditional statements, so a wrong guess changes nothing. */
@Component
class StockLevels {

    /** An item's row as read under a row lock. */
    record Level(long generation, long quantity) {
    }

    private final JdbcClient jdbc;

    StockLevels(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Takes {@code quantity} units in one step, only if the row is at {@code generation} and has them. */
    boolean deduct(String itemCode, long generation, long quantity, int events, Instant at) {
        return jdbc.sql("""
                        UPDATE stock_level
                           SET quantity = quantity - :quantity, events_applied = events_applied + :events,
                               last_applied_at = :at
                         WHERE item_code = :item AND generation = :generation AND quantity >= :quantity""")
                .param("quantity", quantity).param("events", events).param("at", Utc.toColumn(at))
                .param("item", itemCode).param("generation", generation)
                .update() == 1;
    }

    /**
     * Sets the baseline of the reset's generation, only if the stored generation is older, and by at most
     * {@code maxStep} (a subtraction, which cannot overflow: both generations are positive).
     */
    boolean resetIfNewer(StockReset reset, long maxStep, Instant at) {
        return jdbc.sql("""
                        UPDATE stock_level
                           SET generation = :generation, baseline = :quantity, quantity = :quantity,
                               events_applied = 0, reset_event_id = :eventId, reset_at = :resetAt,
                               last_applied_at = :at
                         WHERE item_code = :item AND generation < :generation AND :generation - generation <= :maxStep""")
                .param("generation", reset.generation()).param("quantity", reset.quantity())
                .param("eventId", reset.eventId().toString()).param("resetAt", Utc.toColumn(reset.occurredAt()))
                .param("at", Utc.toColumn(at)).param("item", reset.itemCode()).param("maxStep", maxStep)
                .update() == 1;
    }

    /** The first reset of an item creates its row. */
    void insert(StockReset reset, Instant at) {
        jdbc.sql("""
                        INSERT INTO stock_level (item_code, generation, baseline, quantity, events_applied,
                                                 reset_event_id, reset_at, last_applied_at)
                        VALUES (:item, :generation, :quantity, :quantity, 0, :eventId, :resetAt, :at)""")
                .param("item", reset.itemCode()).param("generation", reset.generation())
                .param("quantity", reset.quantity()).param("eventId", reset.eventId().toString())
                .param("resetAt", Utc.toColumn(reset.occurredAt())).param("at", Utc.toColumn(at))
                .update();
    }

    /** Reads and row-locks the item's row until the transaction ends, to find out why a conditional update missed. */
    Optional<Level> lock(String itemCode) {
        return jdbc.sql("SELECT generation, quantity FROM stock_level WHERE item_code = ? FOR UPDATE")
                .param(itemCode)
                .query((rs, n) -> new Level(rs.getLong("generation"), rs.getLong("quantity")))
                .optional();
    }
}
