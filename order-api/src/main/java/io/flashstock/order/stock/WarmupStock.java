package io.flashstock.order.stock;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.warmup.WarmupFixture;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

import java.util.List;

/**
 * The warm-up's item: a Redis counter with no {@code stock_item} row, whose orders' outbox rows are
 * written as {@code WARMUP} (never published) and removed afterwards with the orders and the keys. An item
 * without a row is at load epoch 0 for the orders' fence, so the warm-up loads its counter under epoch 0.
 */
@Component
class WarmupStock implements WarmupFixture {

    /** Any generation does; the warm-up item never has a reset. */
    private static final long WARMUP_GENERATION = 1;
    /** The load epoch of an item without a {@code stock_item} row. */
    private static final long WARMUP_LOAD_EPOCH = 0;

    private final StockCounters counters;
    private final JdbcClient jdbc;
    private final TransactionTemplate transaction;

    WarmupStock(StockCounters counters, JdbcClient jdbc, TransactionTemplate transaction) {
        this.counters = counters;
        this.jdbc = jdbc;
        this.transaction = transaction;
    }

    @Override
    public void prepare(String itemCode, long units) {
        counters.delete(itemCode, List.of());
        counters.load(itemCode, units, WARMUP_GENERATION, null, WARMUP_LOAD_EPOCH, Gate.REDIS);
    }

    @Override
    public long cleanUp(String itemCode) {
        List<String> idempotencyKeys = jdbc.sql("""
                        SELECT o.idempotency_key FROM purchase_order o JOIN outbox_event e ON e.event_id = o.event_id
                        WHERE o.item_code = ? AND o.idempotency_key IS NOT NULL AND e.status = ?""")
                .params(itemCode, OutboxStatus.WARMUP.name()).query(String.class).list();
        long removed = transaction.execute(status -> {
            // the warm-up's orders only (their outbox rows are WARMUP), whatever else an item of this code has
            long orders = jdbc.sql("""
                            DELETE o FROM purchase_order o JOIN outbox_event e ON e.event_id = o.event_id
                            WHERE o.item_code = ? AND e.status = ?""")
                    .params(itemCode, OutboxStatus.WARMUP.name()).update();
            jdbc.sql("DELETE FROM outbox_event WHERE aggregate_key = ? AND status = ?")
                    .params(itemCode, OutboxStatus.WARMUP.name()).update();
            return orders;
        });
        counters.delete(itemCode, idempotencyKeys);
        return removed;
    }
}
