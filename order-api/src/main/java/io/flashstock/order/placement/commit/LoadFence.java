package io.flashstock.order.placement.commit;

import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.stock.Gate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The orders' side of the fence between a rebuild of an item's Redis counter and the orders taken from the
 * counter before it (the rebuild's side: {@code StockItems.fence}). Inside the order transaction, the items'
 * rows are read with a shared lock, held until the transaction ends, and only the orders whose stock was taken
 * under their item's current load epoch are written. A rebuild raises the epoch under the row's exclusive lock,
 * so it waits for the transactions that read the old epoch, and the ones that read after it refuse the old
 * epoch's orders: none can commit after the rebuild counted the orders. An item sold by its row (the DB-lock
 * gate) admits no order of the Redis gate, whatever a counter left in Redis says. One statement per
 * transaction, whatever its number of orders.
 */
@Component
class LoadFence {

    /** {@code LOCK IN SHARE MODE}: MySQL 8 and MariaDB both take it ({@code FOR SHARE} is MySQL's only). */
    private static final String CURRENT_EPOCHS = """
            SELECT item_code, load_epoch, gate FROM stock_item WHERE item_code IN (:items) LOCK IN SHARE MODE""";

    /** No load epoch: what an item of the DB-lock gate has for the orders taken from a Redis counter. */
    private static final long NONE = -1;

    private final JdbcClient jdbc;

    LoadFence(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * The codes of the orders not taken under their item's current load epoch, which must not be written; holds
     * the items' rows until the transaction ends. An item without a row (the warm-up's) is at epoch 0; one of the
     * DB-lock gate admits none.
     */
    Set<String> refused(List<PlacedOrder> orders) {
        var items = orders.stream().map(order -> order.command().itemCode()).distinct().toList();
        Map<String, Long> epochs = new HashMap<>();
        jdbc.sql(CURRENT_EPOCHS).param("items", items)
                .query(rs -> {
                    epochs.put(rs.getString(1), Gate.fromColumn(rs.getString(3)).countedInRedis() ? rs.getLong(2) : NONE);
                });
        var refused = new HashSet<String>();
        for (PlacedOrder order : orders) {
            if (epochs.getOrDefault(order.command().itemCode(), 0L) != order.loadEpoch()) {
                refused.add(order.orderCode());
            }
        }
        return refused;
    }
}
