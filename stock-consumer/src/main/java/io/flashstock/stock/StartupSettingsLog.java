package io.flashstock.stock;

import com.zaxxer.hikari.HikariDataSource;
import io.flashstock.stock.consuming.ConsumerSettings;
import io.flashstock.stock.locking.LockSettings;
import io.flashstock.stock.retention.RetentionSettings;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

import javax.sql.DataSource;
import java.util.Map;

/** Prints the settings that shape throughput and failure handling once, when the service is ready. */
@Component
class StartupSettingsLog {

    private static final Logger log = LoggerFactory.getLogger(StartupSettingsLog.class);

    private final KafkaProperties kafka;
    private final ConsumerSettings consumer;
    private final LockSettings lock;
    private final RetentionSettings retention;
    private final DataSource dataSource;

    StartupSettingsLog(KafkaProperties kafka, ConsumerSettings consumer, LockSettings lock,
                       RetentionSettings retention, DataSource dataSource) {
        this.kafka = kafka;
        this.consumer = consumer;
        this.lock = lock;
        this.retention = retention;
        this.dataSource = dataSource;
    }

    @EventListener(ApplicationReadyEvent.class)
    void logSettings() {
        Map<String, Object> consumerConfig = kafka.buildConsumerProperties();
        Integer concurrency = kafka.getListener().getConcurrency();
        ConsumerSettings.Retry retry = consumer.retry();
        log.info("stock-consumer settings: topic={} group={} concurrency={} max.poll.records={} ack-mode={} "
                        + "lock={} lock.wait={} lock.lease={} retry={}..{} x{} (unlimited; {} attempts of a refused "
                        + "record) processed-event retention={} every {} stuck-after={} db.pool={}",
                consumer.topic(), consumerConfig.get(ConsumerConfig.GROUP_ID_CONFIG),
                concurrency == null ? 1 : concurrency,
                consumerConfig.getOrDefault(ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                        ConsumerConfig.DEFAULT_MAX_POLL_RECORDS),
                kafka.getListener().getAckMode(), lock.mode(), lock.waitTime(), lock.leaseTime(),
                retry.initialInterval(), retry.maxInterval(), retry.multiplier(), retry.refusedRecordAttempts(),
                retention.processedEvents(), retention.interval(), consumer.stuckAfter(), poolSize());
    }

    private Object poolSize() {
        return dataSource instanceof HikariDataSource hikari ? hikari.getMaximumPoolSize() : "n/a";
    }
}
