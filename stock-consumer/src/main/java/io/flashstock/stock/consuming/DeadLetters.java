package io.flashstock.stock.consuming;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.support.KafkaUtils;
import org.springframework.kafka.support.serializer.DeserializationException;
import org.springframework.stereotype.Component;

import java.util.List;

/**
 * Publishes rejected records to the dead-letter topic through spring-kafka's recoverer, which keeps the original
 * bytes of a record that failed to deserialize and adds the original topic, partition, offset and exception as
 * headers. Each send waits for the broker's acknowledgement; a failure throws, so the batch is retried.
 */
@Component
class DeadLetters {

    private static final Logger log = LoggerFactory.getLogger(DeadLetters.class);

    private final DeadLetterPublishingRecoverer recoverer;
    private final Counter undeserializable;
    private final Counter invalid;

    DeadLetters(DeadLetterPublishingRecoverer recoverer, MeterRegistry registry) {
        this.recoverer = recoverer;
        this.undeserializable = counter(registry, "deserialization");
        this.invalid = counter(registry, "invalid");
    }

    private static Counter counter(MeterRegistry registry, String reason) {
        return Counter.builder("flashstock.consumer.events.dead.lettered")
                .description("Records published to the dead-letter topic")
                .tag("reason", reason)
                .register(registry);
    }

    void publish(List<Triage.Verdict> rejected) {
        for (Triage.Verdict r : rejected) {
            ConsumerRecord<String, ?> record = r.record();
            log.warn("dead-lettering {}: {}", KafkaUtils.format(record),
                    NestedExceptionUtils.getMostSpecificCause(r.reason()).getMessage());
            recoverer.accept(record, null, r.reason());
            (r.reason() instanceof DeserializationException ? undeserializable : invalid).increment();
        }
    }
}
