package io.flashstock.order.placement.dblock;

import io.flashstock.order.placement.commit.OrderRows;
import io.flashstock.order.placement.core.FirstAnswer;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.gate.GateResult;
import io.flashstock.order.stock.Gate;
import org.springframework.jdbc.core.simple.JdbcClient;

import java.util.Optional;

/**
 * The baseline that teams with only MySQL build: the item's {@code stock_item} row, locked with
 * SELECT … FOR UPDATE, is the gate. It makes the Redis gate's checks (Idempotency-Key, stock, per-user limit,
 * in that order) and takes the quantity from {@code db_remaining}. Every order of an item queues on that one
 * row lock until its transaction (which also writes the order) commits: that queue is what the comparison
 * measures.
 */
class DbLockGate {

    private final JdbcClient jdbc;
    private final OrderRows rows;

    DbLockGate(JdbcClient jdbc, OrderRows rows) {
        this.jdbc = jdbc;
        this.rows = rows;
    }

    /** The locked row: the item's generation, gate, units left (db-lock items only) and per-user limit. */
    private record LockedItem(long generation, Gate gate, long remaining, Integer perUserLimit) {
    }

    /**
     * Locks the item's row and takes the order's quantity if the item has it; only inside the transaction that
     * writes the order, so the lock is held until the order commits. The reads after the lock see every order
     * committed before it: each was committed by the lock's previous holder, and in InnoDB a transaction's
     * first plain read (not the locking one) is what fixes its snapshot.
     */
    GateResult take(OrderCommand order) {
        Optional<LockedItem> locked = jdbc.sql("""
                        SELECT generation, gate, db_remaining, per_user_limit FROM stock_item
                        WHERE item_code = ? FOR UPDATE""")
                .param(order.itemCode())
                .query((rs, row) -> new LockedItem(rs.getLong(1), Gate.fromColumn(rs.getString(2)), rs.getLong(3),
                        rs.getObject(4, Integer.class)))
                .optional();
        if (locked.isEmpty()) {
            return new GateResult.Unknown();
        }
        LockedItem item = locked.get();
        if (item.gate() != Gate.DB_LOCK) {
            return new GateResult.WrongGate(item.gate());
        }
        if (order.idempotencyKey() != null) {
            // the database is the authority on a key, for as long as the order is kept (its unique index)
            Optional<FirstAnswer> first = rows.firstWithKey(order.itemCode(), order.idempotencyKey());
            if (first.isPresent()) {
                return new GateResult.Replay(first.get());
            }
        }
        if (item.remaining() < order.quantity()) {
            return new GateResult.SoldOut(item.remaining());
        }
        if (item.perUserLimit() != null) {
            long bought = bought(order, item.generation());
            if (bought + order.quantity() > item.perUserLimit()) {
                return new GateResult.LimitReached(bought, item.perUserLimit());
            }
        }
        jdbc.sql("UPDATE stock_item SET db_remaining = db_remaining - ? WHERE item_code = ?")
                .params(order.quantity(), order.itemCode()).update();
        return new GateResult.Taken(item.remaining() - order.quantity(), item.generation(), 0);
    }

    private long bought(OrderCommand order, long generation) {
        return jdbc.sql("""
                        SELECT COALESCE(SUM(quantity), 0) FROM purchase_order
                        WHERE item_code = ? AND generation = ? AND user_id = ?""")
                .params(order.itemCode(), generation, order.userId())
                .query(Long.class).single();
    }
}
