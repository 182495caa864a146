package io.flashstock.relay.publishing;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.support.ProducerListener;

@Configuration(proxyBeanMethods = false)
class PublishingConfiguration {

    @Bean
    LoopHeartbeat loopHeartbeat() {
        return new LoopHeartbeat(System::nanoTime);
    }

    @Bean
    ProducerTuning producerTuning(ProducerFactory<?, ?> producerFactory) {
        return ProducerTuning.of(producerFactory.getConfigurationProperties());
    }

    /**
     * Replaces spring-kafka's LoggingProducerListener, which logs every failed record with its payload at
     * ERROR: while the broker is away that is one line per row. {@link FailedRows} logs one line per batch
     * and one per DEAD row instead.
     */
    @Bean
    ProducerListener<Object, Object> quietProducerListener() {
        return new ProducerListener<>() {
        };
    }
}
