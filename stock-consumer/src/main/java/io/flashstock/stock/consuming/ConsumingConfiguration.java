package io.flashstock.stock.consuming;

import io.flashstock.contract.StockEvent;
import io.flashstock.contract.StockTopics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
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
import org.springframework.kafka.support.KafkaUtils;
import org.springframework.kafka.support.serializer.DelegatingByTypeSerializer;
import org.springframework.kafka.support.serializer.JacksonJsonSerializer;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;

import java.util.Map;

/**
 * Error handling of the batch listener. Invalid records never reach the error handler: the listener dead-letters
 * them itself and applies the rest. Whatever the listener throws names a record ({@link
 * org.springframework.kafka.listener.BatchListenerFailedException}): the first one of a batch that failed for a
 * transient reason, retried with exponential back-off without limit; or one the database or the ledger refuses,
 * retried a few times and then dead-lettered, so that its partition moves on.
 */
@Configuration(proxyBeanMethods = false)
class ConsumingConfiguration {

    private static final Logger log = LoggerFactory.getLogger(ConsumingConfiguration.class);

    static final String LISTENER_ID = "stock-ledger";

    /**
     * The offsets before the named record are committed (the listener applied or dead-lettered those records),
     * and the consumer is sought back to it. Every exception is classified retryable; how often is the back-off's
     * to say: without limit for a transient failure, {@code refused-record-attempts} for a record the database or
     * the ledger refuses, after which the recoverer publishes it to the dead-letter topic with the failure in
     * spring-kafka's {@code kafka_dlt-exception-*} headers.
     */
    @Bean
    DefaultErrorHandler batchRetryingErrorHandler(ConsumerSettings properties, MeterRegistry registry,
                                                  DeadLetterPublishingRecoverer deadLetterPublishingRecoverer) {
        ConsumerSettings.Retry retry = properties.retry();
        var transientBackOff = new ExponentialBackOff(retry.initialInterval().toMillis(), retry.multiplier());
        transientBackOff.setMaxInterval(retry.maxInterval().toMillis());
        var refusedBackOff = new FixedBackOff(retry.initialInterval().toMillis(), retry.refusedRecordAttempts() - 1L);
        var handler = new DefaultErrorHandler(deadLetterPublishingRecoverer, transientBackOff);
        handler.setClassifications(Map.of(), true);
        handler.setBackOffFunction((record, ex) -> RecordFailures.causedByRecord(ex) ? refusedBackOff : null);
        Counter retries = Counter.builder("flashstock.consumer.batch.retries")
                .description("Failed attempts to apply a batch, each followed by a retry after back-off")
                .register(registry);
        Counter refused = Counter.builder("flashstock.consumer.events.dead.lettered")
                .description("Records published to the dead-letter topic")
                .tag("reason", "refused")
                .register(registry);
        handler.setRetryListeners(new RetryListener() {
            /** Every failed attempt, with the record the listener named; the batch-wide callback is not counted too. */
            @Override
            public void failedDelivery(ConsumerRecord<?, ?> record, Exception ex, int deliveryAttempt) {
                retries.increment();
                log.warn("batch failed at {} (attempt {}), retrying after back-off: {}", KafkaUtils.format(record),
                        deliveryAttempt, NestedExceptionUtils.getMostSpecificCause(ex).toString());
            }

            @Override
            public void recovered(ConsumerRecord<?, ?> record, Exception ex) {
                refused.increment();
                log.error("dead-lettered {} after {} failed attempts: {}", KafkaUtils.format(record),
                        retry.refusedRecordAttempts(), NestedExceptionUtils.getMostSpecificCause(ex).toString());
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
