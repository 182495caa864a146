package io.flashstock.stock.support;

import io.flashstock.contract.StockEvent;
import io.flashstock.contract.StockTopics;
import io.flashstock.testsupport.TestInfrastructure;
import io.flashstock.testsupport.KafkaTopics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * A test's own stock-events topic and its dead-letter topic on the real broker, with a producer that writes what
 * the relay writes (JSON with a {@code type} property, key = item code, event id and type headers).
 */
public final class StockTopic implements AutoCloseable {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String name;
    private final Admin admin;
    private final KafkaProducer<String, String> producer;
    private final AtomicReference<Exception> failedSend = new AtomicReference<>();

    private StockTopic(String name, Admin admin, KafkaProducer<String, String> producer) {
        this.name = name;
        this.admin = admin;
        this.producer = producer;
    }

    public static StockTopic create(String prefix, int partitions) {
        return create(prefix, partitions, Map.of());
    }

    /** With topic-level settings (such as {@code retention.ms}) on the events topic; the dead-letter topic has none. */
    public static StockTopic create(String prefix, int partitions, Map<String, String> configs) {
        String bootstrap = TestInfrastructure.get().kafkaBootstrapServers();
        String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        KafkaTopics.create(bootstrap, List.of(new NewTopic(name, partitions, (short) 1).configs(configs),
                new NewTopic(StockTopics.deadLetterTopic(name), partitions, (short) 1)));
        Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        var producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                // one request at a time: a retried batch cannot be overtaken by the next (see KafkaTopics)
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
                ProducerConfig.LINGER_MS_CONFIG, 5),
                new StringSerializer(), new StringSerializer());
        return new StockTopic(name, admin, producer);
    }

    public String name() {
        return name;
    }

    public String deadLetterTopic() {
        return StockTopics.deadLetterTopic(name);
    }

    public static String json(StockEvent event) {
        return JSON.writeValueAsString(event);
    }

    public void send(StockEvent... events) {
        for (StockEvent event : events) {
            var record = new ProducerRecord<>(name, event.itemCode(), json(event));
            record.headers().add(StockTopics.EVENT_ID_HEADER, event.eventId().toString().getBytes(StandardCharsets.UTF_8));
            record.headers().add(StockTopics.EVENT_TYPE_HEADER, event.type().getBytes(StandardCharsets.UTF_8));
            producer.send(record, this::failed);
        }
    }

    private void failed(RecordMetadata metadata, Exception exception) {
        if (exception != null) {
            failedSend.compareAndSet(null, exception);
        }
    }

    /** A record as it is on the wire, for poison messages; a null value is a tombstone. */
    public void sendRaw(String key, String value) {
        producer.send(new ProducerRecord<>(name, key, value), this::failed);
    }

    /** A record put on the dead-letter topic directly, as the consumer leaves one there: key = item code. */
    public void sendDeadLetter(String key, String value) {
        producer.send(new ProducerRecord<>(deadLetterTopic(), key, value), this::failed);
    }

    /** Waits until everything sent is acknowledged; fails if any record was not, rather than test a stream with a gap. */
    public void flush() {
        producer.flush();
        if (failedSend.get() != null) {
            throw new IllegalStateException("a record sent to " + name + " was not written", failedSend.get());
        }
    }

    /** Records in the dead-letter topic, from its end offsets (cheap, no consumer needed). */
    public long deadLetterCount() {
        return endOffsets(deadLetterTopic()).values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Whether the group has committed the end offset of every partition: its listeners returned from their last
     * batch, so no item lock of theirs is still held and a kill now leaves nothing to redeliver.
     */
    public boolean committedToEnd(String group) {
        try {
            var ends = endOffsets(name);
            var committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            return ends.entrySet().stream().allMatch(end -> committed.get(end.getKey()) != null
                    && committed.get(end.getKey()).offset() == end.getValue());
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The end offset of each partition of {@code topic}. */
    private Map<TopicPartition, Long> endOffsets(String topic) {
        try {
            return admin.listOffsets(KafkaTopics.latestOffsets(admin, List.of(topic))).all().get().entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every record of the dead-letter topic; call once {@link #deadLetterCount()} reached the expected number. */
    public List<ConsumerRecord<String, byte[]>> deadLetters() {
        long expected = deadLetterCount();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestInfrastructure.get().kafkaBootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "dlt-reader-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(deadLetterTopic()));
            List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            return records;
        }
    }

    @Override
    public void close() {
        producer.close();
        try {
            admin.deleteTopics(List.of(name, deadLetterTopic())).all().get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        } finally {
            admin.close();
        }
    }
}
