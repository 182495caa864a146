package io.flashstock.relay.publishing;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.core.KafkaProducerException;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;

class BatchPublisherTest {

    @Test
    void findsTheKafkaClientsExceptionUnderTheWrappers() {
        var cause = new TimeoutException("metadata not available");
        var wrapped = new CompletionException(new ExecutionException(
                new KafkaProducerException(new ProducerRecord<>("t", "v"), "Failed to send", cause)));

        assertThat(BatchPublisher.kafkaCause(wrapped)).isSameAs(cause);
        assertThat(BatchPublisher.kafkaCause(new KafkaException("Send failed", cause))).isSameAs(cause);
        assertThat(new BatchPublisher.Failed(null, cause).brokerTrouble()).isTrue();
    }
}
