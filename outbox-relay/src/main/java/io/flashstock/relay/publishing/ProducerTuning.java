package io.flashstock.relay.publishing;

import org.apache.kafka.clients.producer.ProducerConfig;

import java.time.Duration;
import java.util.Map;

/**
 * The producer settings the relay depends on, as the Kafka client resolves them (Kafka's defaults filled
 * in), read once from the producer factory's configuration.
 *
 * @param maxBlock how long {@code send} may block for metadata or buffer space
 * @param deliveryTimeout how long after {@code send} the producer reports success or failure at the latest
 */
public record ProducerTuning(String acks, boolean idempotence, int maxInFlight, long lingerMs, int batchSize,
                             String compression, Duration maxBlock, Duration deliveryTimeout) {

    public static ProducerTuning of(Map<String, Object> producerConfig) {
        Map<String, Object> resolved = ProducerConfig.configDef().parse(producerConfig);
        return new ProducerTuning(
                String.valueOf(resolved.get(ProducerConfig.ACKS_CONFIG)),
                (Boolean) resolved.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG),
                number(resolved, ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION).intValue(),
                number(resolved, ProducerConfig.LINGER_MS_CONFIG).longValue(),
                number(resolved, ProducerConfig.BATCH_SIZE_CONFIG).intValue(),
                String.valueOf(resolved.get(ProducerConfig.COMPRESSION_TYPE_CONFIG)),
                Duration.ofMillis(number(resolved, ProducerConfig.MAX_BLOCK_MS_CONFIG).longValue()),
                Duration.ofMillis(number(resolved, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG).longValue()));
    }

    /** The longest a batch can take from the first send to the last acknowledgement or failure. */
    public Duration sendDeadline() {
        return maxBlock.plus(deliveryTimeout);
    }

    /** Whether a completed send means every in-sync replica has the record, written once and in order. */
    public boolean acknowledgedByAllReplicas() {
        return ("all".equals(acks) || "-1".equals(acks)) && idempotence;
    }

    private static Number number(Map<String, Object> resolved, String key) {
        return (Number) resolved.get(key);
    }
}
