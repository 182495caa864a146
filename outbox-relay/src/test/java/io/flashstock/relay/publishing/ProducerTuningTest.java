package io.flashstock.relay.publishing;

import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ProducerTuningTest {

    @Test
    void readsConfiguredValuesAsTheClientResolvesThem() {
        Map<String, Object> config = base();
        config.put("acks", "all");
        config.put("enable.idempotence", "true");
        config.put("linger.ms", "5");
        config.put("batch.size", 65536);
        config.put("compression.type", "lz4");
        config.put("max.block.ms", "5000");
        config.put("delivery.timeout.ms", "10000");

        ProducerTuning tuning = ProducerTuning.of(config);

        assertThat(tuning.acknowledgedByAllReplicas()).isTrue();
        assertThat(tuning.lingerMs()).isEqualTo(5);
        assertThat(tuning.batchSize()).isEqualTo(65536);
        assertThat(tuning.compression()).isEqualTo("lz4");
        assertThat(tuning.sendDeadline()).isEqualTo(Duration.ofSeconds(15));
    }

    @Test
    void fillsInKafkaDefaultsAndSpotsWeakAcks() {
        Map<String, Object> config = base();
        config.put("acks", "1");

        ProducerTuning tuning = ProducerTuning.of(config);

        assertThat(tuning.acknowledgedByAllReplicas()).isFalse();
        assertThat(tuning.maxBlock()).isEqualTo(Duration.ofMinutes(1));
        assertThat(tuning.deliveryTimeout()).isEqualTo(Duration.ofMinutes(2));
    }

    private static Map<String, Object> base() {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", "127.0.0.1:9092");
        config.put("key.serializer", StringSerializer.class);
        config.put("value.serializer", StringSerializer.class);
        return config;
    }
}
