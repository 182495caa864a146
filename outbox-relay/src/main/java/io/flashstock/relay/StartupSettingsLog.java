package io.flashstock.relay;

import com.zaxxer.hikari.HikariDataSource;
import io.flashstock.relay.publishing.ProducerTuning;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

import javax.sql.DataSource;

/** The one start-up line with the effective tuning, so a log shows what a run was measured with. */
@Component
class StartupSettingsLog {

    private static final Logger log = LoggerFactory.getLogger(StartupSettingsLog.class);

    private final RelaySettings settings;
    private final ProducerTuning producer;
    private final DataSource dataSource;

    StartupSettingsLog(RelaySettings settings, ProducerTuning producer, DataSource dataSource) {
        this.settings = settings;
        this.producer = producer;
        this.dataSource = dataSource;
    }

    @EventListener(ApplicationReadyEvent.class)
    void logSettings() {
        String pool = dataSource instanceof HikariDataSource hikari
                ? Integer.toString(hikari.getMaximumPoolSize()) : "n/a";
        log.info("outbox-relay ready: instance-id={}, topic={}, batch-size={}, idle-interval={}, lease={}, "
                        + "max-attempts={}, backoff={}..{} x{}, retention={} (batch {}, every {}), "
                        + "backlog-sample-interval={}, stall-timeout={}; producer acks={}, enable.idempotence={}, "
                        + "max.in.flight={}, linger.ms={}, batch.size={}, compression={}, max.block.ms={}, "
                        + "delivery.timeout.ms={}; db pool={}",
                settings.instanceId(), settings.topic(), settings.batchSize(), settings.idleInterval(),
                settings.lease(), settings.maxAttempts(), settings.backoff().initial(), settings.backoff().max(),
                settings.backoff().multiplier(), settings.retention(), settings.retentionBatchSize(),
                settings.retentionInterval(), settings.backlogSampleInterval(), settings.stallTimeout(), producer.acks(),
                producer.idempotence(), producer.maxInFlight(), producer.lingerMs(), producer.batchSize(),
                producer.compression(), producer.maxBlock().toMillis(), producer.deliveryTimeout().toMillis(),
                pool);
    }
}
