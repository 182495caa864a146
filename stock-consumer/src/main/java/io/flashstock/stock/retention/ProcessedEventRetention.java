package io.flashstock.stock.retention;

import io.flashstock.contract.Utc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.time.Clock;

/** Deletes {@code processed_event} rows older than the retention, in bounded batches (one transaction each). */
@Component
class ProcessedEventRetention {

    private static final Logger log = LoggerFactory.getLogger(ProcessedEventRetention.class);

    private final JdbcTemplate jdbc;
    private final RetentionSettings properties;
    private final Clock clock;

    ProcessedEventRetention(JdbcTemplate jdbc, RetentionSettings properties, Clock clock) {
        this.jdbc = jdbc;
        this.properties = properties;
        this.clock = clock;
    }

    /** @return the number of rows deleted */
    int prune() {
        var cutoff = Utc.toColumn(clock.instant().minus(properties.processedEvents()));
        int total = 0;
        int deleted;
        do {
            deleted = jdbc.update("DELETE FROM processed_event WHERE processed_at < ? ORDER BY processed_at LIMIT ?",
                    cutoff, properties.deleteBatchSize());
            total += deleted;
        } while (deleted == properties.deleteBatchSize());
        if (total > 0) {
            log.info("deleted {} processed_event rows older than {}", total, properties.processedEvents());
        }
        return total;
    }
}
