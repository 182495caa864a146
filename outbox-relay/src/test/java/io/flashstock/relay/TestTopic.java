package io.flashstock.relay;

import io.flashstock.testsupport.KafkaTopics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;

/** A test's own topic (auto-create is off on the brokers) and a reader for everything in it. */
public record TestTopic(String bootstrapServers, String name, int partitions) {

    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration READ_DEADLINE = Duration.ofSeconds(60);

    public static TestTopic create(String bootstrapServers, String prefix, int partitions) {
        return create(bootstrapServers, prefix, partitions, Map.of());
    }

    /** A topic with the given topic-level configs, e.g. {@code max.message.bytes}. */
    public static TestTopic create(String bootstrapServers, String prefix, int partitions,
                                   Map<String, String> configs) {
        var topic = new TestTopic(bootstrapServers, prefix + "-" + UUID.randomUUID().toString().substring(0, 8),
                partitions);
        KafkaTopics.create(bootstrapServers, List.of(new NewTopic(topic.name, partitions, (short) 1).configs(configs)));
        return topic;
    }

    /** Changes one topic-level config; the broker applies it to the next produce request. */
    public void setConfig(String config, String value) {
        var resource = new ConfigResource(ConfigResource.Type.TOPIC, name);
        try (Admin admin = admin()) {
            admin.incrementalAlterConfigs(Map.of(resource, List.of(
                    new AlterConfigOp(new ConfigEntry(config, value), AlterConfigOp.OpType.SET)))).all().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not set " + config + " of topic " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public void delete() {
        try (Admin admin = admin()) {
            admin.deleteTopics(List.of(name)).all().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not delete topic " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Every record now in the topic, partition by partition in offset order: reads up to the end offsets
     * taken at the start, so call it once the records of interest are acknowledged.
     */
    public List<ConsumerRecord<String, String>> readAll() {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (var consumer = new KafkaConsumer<String, String>(config)) {
            List<TopicPartition> all = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                all.add(new TopicPartition(name, p));
            }
            consumer.assign(all);
            consumer.seekToBeginning(all);
            Map<TopicPartition, Long> end = consumer.endOffsets(all);
            List<ConsumerRecord<String, String>> records = new ArrayList<>();
            long deadline = System.nanoTime() + READ_DEADLINE.toNanos();
            while (all.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + name + " up to " + end + " in " + READ_DEADLINE);
                }
                consumer.poll(POLL).forEach(records::add);
            }
            records.sort((a, b) -> a.partition() != b.partition() ? Integer.compare(a.partition(), b.partition())
                    : Long.compare(a.offset(), b.offset()));
            return records;
        }
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }
}
