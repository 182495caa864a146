package io.flashstock.order.stock;

import io.flashstock.contract.Utc;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import java.time.Instant;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** The {@code stock_item} baselines and what the orders of a generation add up to. */
@Component
public class StockItems {

    /**
     * Baseline of one item: what a reset set, which generation it started, and which gate sells it;
     * {@code dbRemaining} is the units left of a {@link Gate#DB_LOCK} item, null for a {@link Gate#REDIS} one;
     * {@code loadEpoch} the load of its Redis counter whose orders may be written (V3__load_epoch.sql).
     */
    public record StockItem(String itemCode, long generation, long baseline, Integer perUserLimit, Gate gate,
                            Long dbRemaining, long loadEpoch) {
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

    /** The items whose units are counted in Redis: every gate but the database's. */
    public List<String> countedInRedis() {
        return jdbc.sql("SELECT item_code FROM stock_item WHERE gate <> ?").param(Gate.DB_LOCK.code())
                .query(String.class).list();
    }

    public Optional<StockItem> find(String itemCode) {
        return jdbc.sql("""
                        SELECT item_code, generation, baseline, per_user_limit, gate, db_remaining, load_epoch
                        FROM stock_item WHERE item_code = ?""")
                .param(itemCode)
                .query((rs, row) -> new StockItem(rs.getString(1), rs.getLong(2), rs.getLong(3),
                        rs.getObject(4, Integer.class), Gate.fromColumn(rs.getString(5)), rs.getObject(6, Long.class),
                        rs.getLong(7)))
                .optional();
    }

    /**
     * Starts the next load of the item's Redis counter: raises its load epoch. The update takes the row's
     * exclusive lock, so it waits for every order transaction that read the old epoch (they hold a shared lock
     * on the row until they end), and no order taken under an older load can commit after it. Call inside a
     * transaction; it ends the fence when it commits.
     *
     * @return the item after the raise, empty for an item with no baseline
     */
    Optional<StockItem> fence(String itemCode) {
        int raised = jdbc.sql("UPDATE stock_item SET load_epoch = load_epoch + 1 WHERE item_code = ?")
                .param(itemCode).update();
        return raised == 0 ? Optional.empty() : find(itemCode);
    }

    /**
     * Sets the item's baseline and gate and starts its next generation (1 for a new item); call inside the
     * transaction that writes the reset's outbox row. A {@link Gate#DB_LOCK} item starts with all of its
     * baseline in {@code db_remaining}. Portable upsert: no VALUES() (deprecated in MySQL 8) and no row alias
     * (not in MariaDB); the row lock it takes serialises concurrent resets of one item, and waits for a
     * DB-lock order holding it, and for every order transaction of the Redis gate that read the item's load
     * epoch, which it raises (see {@link #fence}).
     *
     * @return the item with its new generation and load epoch
     */
    StockItem reset(String itemCode, long baseline, Integer perUserLimit, Gate gate, UUID eventId, Instant at) {
        var when = Utc.toColumn(at);
        Long dbRemaining = gate == Gate.DB_LOCK ? baseline : null;
        jdbc.sql("""
                        INSERT INTO stock_item (item_code, generation, baseline, per_user_limit, gate, db_remaining,
                                                reset_event_id, reset_at, load_epoch)
                        VALUES (?, 1, ?, ?, ?, ?, ?, ?, 1)
                        ON DUPLICATE KEY UPDATE generation = generation + 1, baseline = ?, per_user_limit = ?,
                                                gate = ?, db_remaining = ?, reset_event_id = ?, reset_at = ?,
                                                load_epoch = load_epoch + 1""")
                .params(itemCode, baseline, perUserLimit, gate.code(), dbRemaining, eventId.toString(), when,
                        baseline, perUserLimit, gate.code(), dbRemaining, eventId.toString(), when)
                .update();
        return find(itemCode).orElseThrow();
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
