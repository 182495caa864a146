package io.flashstock.order.reconciliation;

import io.flashstock.contract.OutboxStatus;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;

/**
 * What outbox-relay's {@code SentEventRetention} runs: its statement, copied, batch after batch. That class lives
 * in outbox-relay, a Spring Boot application that order-api's tests cannot load; system-tests' ReconciliationIT
 * runs the relay's own retention against the built jars.
 */
final class RelayRetention {

    private static final String DELETE_EXPIRED = """
            DELETE FROM outbox_event
            WHERE status = :sent AND sent_at < UTC_TIMESTAMP(6) - INTERVAL :retentionSeconds SECOND
            ORDER BY sent_at
            LIMIT :limit""";
    private static final int BATCH = 1000;

    private RelayRetention() {
    }

    /** Deletes the SENT rows sent more than {@code retention} ago; returns how many went. */
    static long deleteSentOlderThan(Duration retention, JdbcClient jdbc, TransactionTemplate transaction) {
        long total = 0;
        int removed;
        do {
            removed = transaction.execute(status -> jdbc.sql(DELETE_EXPIRED)
                    .param("sent", OutboxStatus.SENT.name())
                    .param("retentionSeconds", retention.toSeconds())
                    .param("limit", BATCH)
                    .update());
            total += removed;
        } while (removed == BATCH);
        return total;
    }
}
