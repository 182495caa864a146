package io.flashstock.stock.consuming;

import io.flashstock.contract.StockTopics;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * What the consumer reads and how it retries. Kafka's own knobs (group id, concurrency, max.poll.records) are
 * Spring Boot's {@code spring.kafka.*} settings.
 *
 * @param topic the topic of stock events; records that cannot be applied go to {@code <topic>-dlt}
 * @param retry back-off of a batch that failed for a transient reason (database or Redis down, lock wait ran
 *              out, dead-letter topic unreachable); such a batch is retried without limit, never dead-lettered
 */
@ConfigurationProperties("flashstock.consumer")
public record ConsumerProperties(@DefaultValue(StockTopics.EVENTS) String topic, @DefaultValue Retry retry) {

    /**
     * @param initialInterval wait before the first retry of a failed batch
     * @param multiplier      factor applied to the wait after each failed retry
     * @param maxInterval     longest wait between two retries
     */
    public record Retry(@DefaultValue("500ms") Duration initialInterval,
                        @DefaultValue("2") double multiplier,
                        @DefaultValue("30s") Duration maxInterval) {
    }
}
