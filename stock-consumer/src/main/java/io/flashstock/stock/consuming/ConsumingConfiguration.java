package io.flashstock.stock.consuming;

import io.flashstock.contract.StockEvent;
import io.flashstock.contract.StockTopics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.RetryListener;
import org.springframework.kafka.support.serializer.DelegatingByTypeSerializer;
import org.springframework.kafka.support.serializer.JacksonJsonSerializer;
import org.springframework.util.backoff.ExponentialBackOff;

import java.util.Map;

/**
 * Error handling of the batch listener. Invalid records never reach the error handler: the listener dead-letters
 * them itself and applies the rest, so no valid record is skipped and the partition keeps flowing. Everything that
 * reaches the error handler is therefore transient and is retried with exponential back-off, without limit.
 */
@Configuration(proxyBeanMethods = false)
class ConsumingConfiguration {

    private static final Logger log = LoggerFactory.getLogger(ConsumingConfiguration.class);

    static final String LISTENER_ID = "stock-ledger";

    /**
     * Retries a failed batch: the container pauses its partitions, keeps polling (so the group does not evict it)
     * and calls the listener again after each back-off. The back-off never runs out, and every exception is
     * classified retryable: a batch handed to a recoverer would be skipped or dead-lettered as a whole, valid
     * events included.
     */
    @Bean
    DefaultErrorHandler batchRetryingErrorHandler(ConsumerProperties properties, MeterRegistry registry) {
        ConsumerProperties.Retry retry = properties.retry();
        var backOff = new ExponentialBackOff(retry.initialInterval().toMillis(), retry.multiplier());
        backOff.setMaxInterval(retry.maxInterval().toMillis());
        var handler = new DefaultErrorHandler(backOff);
        handler.setClassifications(Map.of(), true);
        Counter retries = Counter.builder("stock.batch.retries")
                .description("Failed attempts to apply a batch, each followed by a retry after back-off")
                .register(registry);
        handler.setRetryListeners(new RetryListener() {
            @Override
            public void failedDelivery(ConsumerRecord<?, ?> record, Exception ex, int deliveryAttempt) {
                failed(1, ex, deliveryAttempt);
            }

            @Override
            public void failedDelivery(ConsumerRecords<?, ?> records, Exception ex, int deliveryAttempt) {
                failed(records.count(), ex, deliveryAttempt);
            }

            private void failed(int records, Exception ex, int deliveryAttempt) {
                retries.increment();
                log.warn("batch of {} records failed (attempt {}), retrying after back-off: {}", records,
                        deliveryAttempt, NestedExceptionUtils.getMostSpecificCause(ex).toString());
            }
        });
        return handler;
    }

    /**
     * Dead letters keep their key; the value is the original bytes when deserialization failed, else the event
     * as JSON. The producer is idempotent with acks=all, like the relay's.
     */
    @Bean
    DefaultKafkaProducerFactory<String, Object> deadLetterProducerFactory(
            KafkaProperties kafka, ObjectProvider<DefaultKafkaProducerFactoryCustomizer> customizers) {
        Map<Class<?>, Serializer<?>> byType = Map.of(
                byte[].class, new ByteArraySerializer(),
                StockEvent.class, new JacksonJsonSerializer<StockEvent>().noTypeInfo());
        var factory = new DefaultKafkaProducerFactory<String, Object>(kafka.buildProducerProperties(),
                new StringSerializer(), new DelegatingByTypeSerializer(byType, true));
        customizers.orderedStream().forEach(customizer -> customizer.customize(factory));
        return factory;
    }

    @Bean
    KafkaTemplate<String, Object> deadLetterTemplate(DefaultKafkaProducerFactory<String, Object> factory) {
        return new KafkaTemplate<>(factory);
    }

    /** Publishes to {@code <topic>-dlt}; the producer picks the partition from the key. */
    @Bean
    DeadLetterPublishingRecoverer deadLetterPublishingRecoverer(KafkaTemplate<String, Object> deadLetterTemplate) {
        return new DeadLetterPublishingRecoverer(deadLetterTemplate,
                (record, ex) -> new TopicPartition(StockTopics.deadLetterTopic(record.topic()), -1));
    }
}
