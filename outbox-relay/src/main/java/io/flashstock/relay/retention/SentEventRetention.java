package io.flashstock.relay.retention;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.relay.RelaySettings;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;


/**
 * Deletes SENT rows older than {@link RelaySettings#retention()}, every
 * {@link RelaySettings#retentionInterval()}, in statements of at most
 * {@link RelaySettings#retentionBatchSize()} rows, so no delete holds many locks or a long undo log.
 * NEW and DEAD rows are never deleted.
 */
@Component
public class SentEventRetention implements SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(SentEventRetention.class);

    /** Walks index ix_outbox_sent (status, sent_at) from its oldest end; sent_at is on the database's clock. */
    private static final String DELETE_EXPIRED = """
            DELETE FROM outbox_event
            WHERE status = :sent AND sent_at < UTC_TIMESTAMP(6) - INTERVAL :retentionSeconds SECOND
            ORDER BY sent_at
            LIMIT :limit""";

    private final JdbcClient jdbc;
    private final RelaySettings settings;
    private final Counter deleted;

    public SentEventRetention(JdbcClient jdbc, RelaySettings settings, MeterRegistry registry) {
        this.jdbc = jdbc;
        this.settings = settings;
        this.deleted = Counter.builder("flashstock.relay.retention.deleted")
                .description("SENT rows deleted after the retention period")
                .baseUnit("rows")
                .register(registry);
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar registrar) {
        registrar.addFixedDelayTask(this::deleteExpired, settings.retentionInterval());
    }

    /** Deletes batch after batch until one comes back short; returns how many rows went. */
    long deleteExpired() {
        long total = 0;
        try {
            int removed;
            do {
                removed = jdbc.sql(DELETE_EXPIRED)
                        .param("sent", OutboxStatus.SENT.name())
                        .param("retentionSeconds", settings.retention().toSeconds())
                        .param("limit", settings.retentionBatchSize())
                        .update();
                total += removed;
                deleted.increment(removed);
            } while (removed == settings.retentionBatchSize() && !Thread.currentThread().isInterrupted());
        } catch (DataAccessException e) {
            log.warn("retention stopped after {} rows: {}", total, e.getMostSpecificCause().toString());
        }
        if (total > 0) {
            log.info("deleted {} SENT outbox rows sent more than {} ago", total, settings.retention());
        }
        return total;
    }
}
