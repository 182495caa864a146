package io.flashstock.perf.jpa;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockEvent;
import io.flashstock.contract.Utc;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.List;

/**
 * order-api's write path: the statements and bindings of its OrderRows.insert and Outbox.appendAll (order-api's
 * classes live in a Spring Boot executable jar, which cannot be a dependency), under a DataSourceTransactionManager
 * as its CheckedCommit drives it. Two batched statements per transaction, each rewritten by the driver into one
 * multi-row INSERT. Not measured here, as it is the same for both paths: the load fence's read of stock_item.
 */
@Component
class JdbcOrderWrites implements OrderWrites {

    /** As in order-api's OrderRows. */
    private static final String INSERT_ORDER = """
            INSERT INTO purchase_order (order_code, event_id, item_code, generation, user_id, quantity, remaining,
                                        idempotency_key, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""";

    /** As in order-api's Outbox. */
    private static final String INSERT_OUTBOX = """
            INSERT INTO outbox_event (event_id, aggregate_key, event_type, payload, status, attempts,
                                      available_at, created_at)
            VALUES (?, ?, ?, ?, ?, 0, ?, ?)""";

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final ObjectWriter eventWriter;

    JdbcOrderWrites(DataSource dataSource, JsonMapper jsonMapper) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.eventWriter = jsonMapper.writerFor(StockEvent.class);
    }

    @Override
    public String variant() {
        return "jdbc";
    }

    @Override
    public void write(List<BenchOrder> batch) {
        transactions.executeWithoutResult(status -> {
            List<Object[]> orders = new ArrayList<>(batch.size());
            List<Object[]> outbox = new ArrayList<>(batch.size());
            for (BenchOrder order : batch) {
                orders.add(new Object[]{order.orderCode(), order.eventId().toString(), order.itemCode(),
                        order.generation(), order.userId(), order.quantity(), order.remaining(),
                        order.idempotencyKey(), Utc.toColumn(order.createdAt())});
            }
            jdbc.batchUpdate(INSERT_ORDER, orders);
            for (BenchOrder order : batch) {
                StockEvent event = order.event();
                var at = Utc.toColumn(event.occurredAt());
                outbox.add(new Object[]{event.eventId().toString(), event.itemCode(), event.type(),
                        eventWriter.writeValueAsString(event), OutboxStatus.NEW.name(), at, at});
            }
            jdbc.batchUpdate(INSERT_OUTBOX, outbox);
        });
    }
}
