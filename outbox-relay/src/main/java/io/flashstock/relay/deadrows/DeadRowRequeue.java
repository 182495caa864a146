package io.flashstock.relay.deadrows;

import io.flashstock.contract.OutboxStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Puts DEAD rows back to NEW, due at once and with their own failures reset, so that the relays publish them
 * again (after the cause was fixed: an ACL granted, a topic's limit raised). Claims keep counting in
 * {@code attempts} and {@code last_error} keeps the last reason until the next failure. Rows go in id order
 * in statements of at most {@link #BATCH} rows, so no statement holds many locks; DEAD rows are never
 * claimed, so none of them is in flight.
 */
@Component
class DeadRowRequeue {

    private static final Logger log = LoggerFactory.getLogger(DeadRowRequeue.class);

    private static final int BATCH = 1000;

    private static final String REQUEUE = """
            UPDATE outbox_event
            SET status = :new, failures = 0, available_at = UTC_TIMESTAMP(6)
            WHERE status = :dead""";
    private static final String IN_ID_ORDER = " ORDER BY id LIMIT :limit";
    private static final String REQUEUE_ALL = REQUEUE + IN_ID_ORDER;
    private static final String REQUEUE_ONE = REQUEUE + " AND id = :id";
    private static final String REQUEUE_ITEM = REQUEUE + " AND aggregate_key = :itemCode" + IN_ID_ORDER;

    private final JdbcClient jdbc;

    DeadRowRequeue(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Returns how many rows went back. */
    long requeue(DeadRowSelection selection) {
        long total;
        if (selection.id() != null) {
            total = statement(REQUEUE_ONE).param("id", selection.id()).update();
        } else {
            String sql = selection.all() ? REQUEUE_ALL : REQUEUE_ITEM;
            total = 0;
            int requeued;
            do {
                var statement = statement(sql).param("limit", BATCH);
                if (selection.itemCode() != null) {
                    statement.param("itemCode", selection.itemCode());
                }
                requeued = statement.update();
                total += requeued;
            } while (requeued == BATCH);
        }
        log.info("requeued {} DEAD outbox rows ({})", total, selection);
        return total;
    }

    private JdbcClient.StatementSpec statement(String sql) {
        return jdbc.sql(sql).param("new", OutboxStatus.NEW.name()).param("dead", OutboxStatus.DEAD.name());
    }
}
