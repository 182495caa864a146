package io.flashstock.stock.consuming;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How long after a record was written Kafka may still deliver it, read from the topic's and the brokers' settings.
 * Time-based retention deletes a whole segment once its newest timestamp is {@code retention.ms} old, and a segment
 * takes records for up to {@code segment.ms}; with producer timestamps ({@code CreateTime}) that newest timestamp may
 * be ahead of the broker's clock by up to {@code message.timestamp.after.max.ms}; and the broker looks for expired
 * segments every {@code log.retention.check.interval.ms}. A record is therefore gone at the latest after the sum. A
 * rewound or expired consumer offset ({@code offsets.retention.minutes}, then {@code auto.offset.reset=earliest})
 * goes back at most to the oldest record still in the log, so it adds nothing to that bound.
 *
 * @param horizon  the bound, or empty when the topic keeps records forever (compaction only, or retention.ms -1)
 * @param because  the settings the bound is made of, for messages
 */
record KafkaRedelivery(Optional<Duration> horizon, String because) {

    private static final String CHECK_INTERVAL = "log.retention.check.interval.ms";

    static KafkaRedelivery of(Admin admin, String topic, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        List<ConfigResource> resources = new ArrayList<>();
        resources.add(new ConfigResource(ConfigResource.Type.TOPIC, topic));
        admin.describeCluster().nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .forEach(node -> resources.add(new ConfigResource(ConfigResource.Type.BROKER, node.idString())));
        Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all()
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        Config topicConfig = configs.get(resources.get(0));
        long checkInterval = configs.entrySet().stream()
                .filter(e -> e.getKey().type() == ConfigResource.Type.BROKER)
                .mapToLong(e -> millis(e.getValue(), CHECK_INTERVAL)).max().orElse(0);
        return of(topicConfig, checkInterval);
    }

    static KafkaRedelivery of(Config topic, long checkIntervalMs) {
        String cleanupPolicy = value(topic, TopicConfig.CLEANUP_POLICY_CONFIG);
        long retention = millis(topic, TopicConfig.RETENTION_MS_CONFIG);
        if (!cleanupPolicy.contains(TopicConfig.CLEANUP_POLICY_DELETE) || retention < 0) {
            return new KafkaRedelivery(Optional.empty(), TopicConfig.CLEANUP_POLICY_CONFIG + "=" + cleanupPolicy
                    + ", " + TopicConfig.RETENTION_MS_CONFIG + "=" + retention + ": records are kept forever");
        }
        long segment = millis(topic, TopicConfig.SEGMENT_MS_CONFIG);
        boolean producerTime = "CreateTime".equals(value(topic, TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG));
        long futureTimestamps = producerTime ? millis(topic, TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG) : 0;
        String because = TopicConfig.RETENTION_MS_CONFIG + " " + Duration.ofMillis(retention)
                + " + " + TopicConfig.SEGMENT_MS_CONFIG + " " + Duration.ofMillis(segment)
                + " + " + TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG + " " + Duration.ofMillis(futureTimestamps)
                + " + " + CHECK_INTERVAL + " " + Duration.ofMillis(checkIntervalMs);
        try {
            long sum = Math.addExact(Math.addExact(retention, segment), Math.addExact(futureTimestamps, checkIntervalMs));
            return new KafkaRedelivery(Optional.of(Duration.ofMillis(sum)), because);
        } catch (ArithmeticException unbounded) {
            return new KafkaRedelivery(Optional.empty(), because + ": no bound");
        }
    }

    private static String value(Config config, String name) {
        ConfigEntry entry = config.get(name);
        if (entry == null || entry.value() == null) {
            throw new IllegalStateException("Kafka did not report " + name);
        }
        return entry.value();
    }

    private static long millis(Config config, String name) {
        return Long.parseLong(value(config, name));
    }
}
