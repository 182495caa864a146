package io.flashstock.order.reconciliation;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.Baseline;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.OrderTotals;
import io.flashstock.order.stock.Gate;
import org.springframework.jdbc.core.simple.JdbcClient;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** The reconciliation's reads of the orders database: baselines, orders and outbox rows. */
final class OrderFigures {

    private OrderFigures() {
    }

    static List<Baseline> baselines(JdbcClient orders, Optional<String> itemCode) {
        return orders.sql("SELECT item_code, generation, baseline, per_user_limit, gate, db_remaining FROM stock_item"
                        + itemCode.map(c -> " WHERE item_code = :item").orElse("") + " ORDER BY item_code")
                .params(itemParams(itemCode))
                .query((rs, n) -> new Baseline(rs.getString(1), rs.getLong(2), rs.getLong(3),
                        rs.getObject(4, Integer.class), Gate.fromColumn(rs.getString(5)), rs.getObject(6, Long.class)))
                .list();
    }

    /** Orders of each item's current generation, and how many of them have their outbox row. */
    static Map<String, OrderTotals> orderTotals(JdbcClient orders, Optional<String> itemCode) {
        return orders.sql("""
                        SELECT o.item_code, COUNT(*), COALESCE(SUM(o.quantity), 0), COUNT(e.id),
                               COALESCE(SUM(CASE WHEN e.id IS NULL THEN 0 ELSE o.quantity END), 0),
                               COALESCE(SUM(CASE WHEN e.status = 'NEW' THEN 1 ELSE 0 END), 0),
                               COALESCE(SUM(CASE WHEN e.status = 'SENT' THEN 1 ELSE 0 END), 0),
                               COALESCE(SUM(CASE WHEN e.status = 'DEAD' THEN 1 ELSE 0 END), 0),
                               COALESCE(SUM(CASE WHEN e.status = 'NEW' AND e.attempts > 0 THEN 1 ELSE 0 END), 0)
                        FROM purchase_order o
                        JOIN stock_item s ON s.item_code = o.item_code AND s.generation = o.generation
                        LEFT JOIN outbox_event e ON e.event_id = o.event_id
                        """ + itemCode.map(c -> " WHERE o.item_code = :item").orElse("") + " GROUP BY o.item_code")
                .params(itemParams(itemCode))
                .query((rs, n) -> Map.entry(rs.getString(1),
                        new OrderTotals(rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6),
                                rs.getLong(7), rs.getLong(8), rs.getLong(9))))
                .list().stream().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    /** Unsent outbox rows of every item. */
    static long unsent(JdbcClient orders) {
        return orders.sql("SELECT COUNT(*) FROM outbox_event WHERE status = ?")
                .param(OutboxStatus.NEW.name()).query(Long.class).single();
    }

    private static Map<String, Object> itemParams(Optional<String> itemCode) {
        return itemCode.<Map<String, Object>>map(c -> Map.of("item", c)).orElse(Map.of());
    }
}
