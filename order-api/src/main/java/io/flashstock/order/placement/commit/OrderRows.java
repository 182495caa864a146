package io.flashstock.order.placement.commit;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockEvent;
import io.flashstock.contract.Utc;
import io.flashstock.order.outbox.Outbox;
import io.flashstock.order.placement.core.FirstAnswer;
import io.flashstock.order.placement.core.PlacedOrder;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The SQL of the orders: an order and its outbox row, written together, and whether an order was committed. */
@Component
public class OrderRows {

    private static final String INSERT_ORDER = """
            INSERT INTO purchase_order (order_code, event_id, item_code, generation, user_id, quantity, remaining,
                                        idempotency_key, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""";

    private final JdbcClient jdbc;
    /** For batched inserts, which JdbcClient does not offer; the driver rewrites them into one multi-row insert. */
    private final JdbcTemplate batches;
    private final Outbox outbox;

    public OrderRows(JdbcClient jdbc, JdbcTemplate batches, Outbox outbox) {
        this.jdbc = jdbc;
        this.batches = batches;
        this.outbox = outbox;
    }

    /** Inserts the orders and their outbox rows, two statements whatever their number; only inside a transaction. */
    public void insert(List<PendingOrder> orders) {
        List<Object[]> rows = new ArrayList<>(orders.size());
        List<StockEvent> events = new ArrayList<>(orders.size());
        List<OutboxStatus> statuses = new ArrayList<>(orders.size());
        for (PendingOrder pending : orders) {
            PlacedOrder order = pending.order();
            var command = order.command();
            rows.add(new Object[]{order.orderCode(), order.eventId().toString(), command.itemCode(),
                    order.generation(), command.userId(), command.quantity(), order.remaining(),
                    command.idempotencyKey(), Utc.toColumn(order.createdAt())});
            events.add(order.event());
            statuses.add(pending.status());
        }
        batches.batchUpdate(INSERT_ORDER, rows);
        outbox.appendAll(events, statuses);
    }

    /** Whether an order with this code was committed. */
    public boolean contains(String orderCode) {
        return jdbc.sql("SELECT COUNT(*) FROM purchase_order WHERE order_code = ?").param(orderCode)
                .query(Long.class).single() > 0;
    }

    /** The order placed for the item with this Idempotency-Key, as the first answer to it. */
    public Optional<FirstAnswer> firstWithKey(String itemCode, String idempotencyKey) {
        return jdbc.sql("""
                        SELECT order_code, quantity, remaining, generation, user_id FROM purchase_order
                        WHERE item_code = ? AND idempotency_key = ?""")
                .params(itemCode, idempotencyKey)
                .query((rs, row) -> new FirstAnswer(rs.getString(1), rs.getInt(2), rs.getLong(3), rs.getLong(4),
                        rs.getString(5)))
                .optional();
    }

    /**
     * Whether the order was committed, for an order whose commit failed: a locking read, which waits for a
     * transaction still writing that order (its commit may still be running on a connection the client lost)
     * instead of reading past it, so an answer of absent is final.
     */
    public boolean committed(String orderCode) {
        return !jdbc.sql("SELECT order_code FROM purchase_order WHERE order_code = ? FOR UPDATE").param(orderCode)
                .query(String.class).list().isEmpty();
    }
}
