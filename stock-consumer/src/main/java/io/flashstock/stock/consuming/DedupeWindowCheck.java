package io.flashstock.stock.consuming;

import io.flashstock.stock.retention.RetentionSettings;
import org.apache.kafka.clients.admin.Admin;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Refuses to start when Kafka could deliver a record again after its {@code processed_event} row was deleted: the
 * consumer resets to {@code earliest}, so a rewound or expired offset would apply such a record twice. Runs while
 * the context is built, before any listener starts.
 */
@Component
class DedupeWindowCheck implements InitializingBean {

    private final KafkaAdmin kafkaAdmin;
    private final String topic;
    private final Duration window;

    DedupeWindowCheck(KafkaAdmin kafkaAdmin, ConsumerSettings consumer, RetentionSettings retention) {
        this.kafkaAdmin = kafkaAdmin;
        this.topic = consumer.topic();
        this.window = retention.processedEvents();
    }

    @Override
    public void afterPropertiesSet() throws InterruptedException {
        Duration timeout = Duration.ofSeconds(kafkaAdmin.getOperationTimeout());
        KafkaRedelivery redelivery;
        try (Admin admin = Admin.create(kafkaAdmin.getConfigurationProperties())) {
            redelivery = KafkaRedelivery.of(admin, topic, timeout);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not read the retention settings of topic " + topic
                    + " from Kafka within " + timeout + ", so the dedupe window cannot be checked: " + e, e);
        }
        if (redelivery.horizon().isEmpty() || window.compareTo(redelivery.horizon().get()) <= 0) {
            throw new IllegalStateException("topic " + topic + " may deliver a record "
                    + redelivery.horizon().map(h -> "up to " + h + " after it was written").orElse("at any age")
                    + " (" + redelivery.because() + "), but processed_event rows are deleted after " + window
                    + " (flashstock.retention.processed-events): an offset rewound that far would apply records twice."
                    + " Raise flashstock.retention.processed-events above it, or lower the topic's retention.ms");
        }
    }
}
