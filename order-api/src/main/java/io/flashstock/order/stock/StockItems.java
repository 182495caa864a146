package io.flashstock.order.stock;

import io.flashstock.order.config.Utc;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import java.time.Instant;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** The {@code stock_item} baselines and what the orders of a generation add up to. */
@Component
public class StockItems {

    /**
     * Baseline of one item: what a reset set, which generation it started, and which gate sells it;
     * {@code dbRemaining} is the units left of a {@link Gate#DB_LOCK} item, null for a {@link Gate#REDIS} one.
     */
    public record StockItem(String itemCode, long generation, long baseline, Integer perUserLimit, Gate gate,
                            Long dbRemaining) {
    }

    /** The orders of one item and generation. */
    public record OrderTotals(long count, long quantity, Instant newest) {
    }

    private final JdbcClient jdbc;

    StockItems(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** The gate of an item with a baseline; empty for an item that has none. */
    public Optional<Gate> gate(String itemCode) {
        return jdbc.sql("SELECT gate FROM stock_item WHERE item_code = ?").param(itemCode)
                .query(String.class).optional().map(Gate::fromColumn);
    }

    public Optional<StockItem> find(String itemCode) {
        return jdbc.sql("""
                        SELECT item_code, generation, baseline, per_user_limit, gate, db_remaining
                        FROM stock_item WHERE item_code = ?""")
                .param(itemCode)
                .query((rs, row) -> new StockItem(rs.getString(1), rs.getLong(2), rs.getLong(3),
                        rs.getObject(4, Integer.class), Gate.fromColumn(rs.getString(5)), rs.getObject(6, Long.class)))
                .optional();
    }

    /**
     * Sets the item's baseline and gate and starts its next generation (1 for a new item); call inside the
     * transaction that writes the reset's outbox row. A {@link Gate#DB_LOCK} item starts with all of its
     * baseline in {@code db_remaining}. Portable upsert: no VALUES() (deprecated in MySQL 8) and no row alias
     * (not in MariaDB); the row lock it takes serialises concurrent resets of one item, and waits for a
     * DB-lock order holding it.
     *
     * @return the new generation
     */
    long reset(String itemCode, long baseline, Integer perUserLimit, Gate gate, UUID eventId, Instant at) {
        var when = Utc.toColumn(at);
        Long dbRemaining = gate == Gate.DB_LOCK ? baseline : null;
        jdbc.sql("""
                        INSERT INTO stock_item (item_code, generation, baseline, per_user_limit, gate, db_remaining,
                                                reset_event_id, reset_at)
                        VALUES (?, 1, ?, ?, ?, ?, ?, ?)
                        ON DUPLICATE KEY UPDATE generation = generation + 1, baseline = ?, per_user_limit = ?,
                                                gate = ?, db_remaining = ?, reset_event_id = ?, reset_at = ?""")
                .params(itemCode, baseline, perUserLimit, gate.code(), dbRemaining, eventId.toString(), when,
                        baseline, perUserLimit, gate.code(), dbRemaining, eventId.toString(), when)
                .update();
        return jdbc.sql("SELECT generation FROM stock_item WHERE item_code = ?").param(itemCode)
                .query(Long.class).single();
    }

    public OrderTotals totals(String itemCode, long generation) {
        return jdbc.sql("""
                        SELECT COUNT(*), COALESCE(SUM(quantity), 0), MAX(created_at)
                        FROM purchase_order WHERE item_code = ? AND generation = ?""")
                .params(itemCode, generation)
                .query((rs, row) -> new OrderTotals(rs.getLong(1), rs.getLong(2),
                        Utc.fromColumn(rs.getObject(3, LocalDateTime.class))))
                .single();
    }

    /** Units each user bought in one generation, for rebuilding the per-user counters. */
    Map<String, Long> boughtPerUser(String itemCode, long generation) {
        var bought = new LinkedHashMap<String, Long>();
        jdbc.sql("""
                        SELECT user_id, SUM(quantity) FROM purchase_order
                        WHERE item_code = ? AND generation = ? GROUP BY user_id""")
                .params(itemCode, generation)
                .query(rs -> {
                    bought.put(rs.getString(1), rs.getLong(2));
                });
        return bought;
    }
}
