package io.flashstock.order.reconciliation;

import io.flashstock.order.reconciliation.ReconciliationReport.KafkaPosition;
import io.flashstock.order.reconciliation.ReconciliationReport.PartitionPosition;
import io.flashstock.contract.StockTopics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.utils.Utils;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Reads how far stock-consumer's group has got through the stock topic, and the dead-letter topic's size. */
class KafkaPositions {

    private final Admin admin;
    private final ReconciliationSettings properties;

    KafkaPositions(Admin admin, ReconciliationSettings properties) {
        this.admin = admin;
        this.properties = properties;
    }

    /**
     * The consumer group's committed offsets, read before anything the report counts: whatever it counts that was
     * consumed by now was applied in the stock database before the report reads it.
     */
    Consumed consumed() {
        Map<TopicPartition, OffsetAndMetadata> committed = await(
                admin.listConsumerGroupOffsets(properties.consumerGroup()).partitionsToOffsetAndMetadata());
        return new Consumed(committed.entrySet().stream().filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset())));
    }

    /**
     * The topic's end offsets now, against what was {@code consumed} earlier, read after everything the report
     * counts: a record it could have counted is either below the committed offsets or shows as lag. Read in this
     * order, an end is never below its committed offset, so no partition's lag can hide another's in the sum.
     */
    KafkaPosition against(Consumed consumed) {
        String topic = properties.topic();
        List<TopicPartition> partitions = partitionsOf(topic);
        Map<TopicPartition, Long> ends = offsets(partitions, OffsetSpec.latest());
        List<PartitionPosition> positions = new ArrayList<>();
        long endSum = 0;
        long committedSum = 0;
        for (TopicPartition tp : partitions) {
            long end = ends.getOrDefault(tp, 0L);
            long done = consumed.offsets().getOrDefault(tp, 0L);
            positions.add(new PartitionPosition(tp.partition(), end, done, end - done));
            endSum += end;
            committedSum += done;
        }
        return new KafkaPosition(topic, properties.consumerGroup(), endSum, committedSum, endSum - committedSum,
                deadLetters(StockTopics.deadLetterTopic(topic)), positions);
    }

    /** The committed offset of each partition of the stock topic the group has consumed from. */
    record Consumed(Map<TopicPartition, Long> offsets) {
    }

    /** The partition the producer's default partitioner picks for a keyed record: murmur2 of the key. */
    static int partitionOf(String itemCode, int partitionCount) {
        return Utils.toPositive(Utils.murmur2(itemCode.getBytes(StandardCharsets.UTF_8))) % partitionCount;
    }

    private long deadLetters(String topic) {
        List<TopicPartition> partitions;
        try {
            partitions = partitionsOf(topic);
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return 0;
            }
            throw e;
        }
        Map<TopicPartition, Long> ends = offsets(partitions, OffsetSpec.latest());
        Map<TopicPartition, Long> starts = offsets(partitions, OffsetSpec.earliest());
        return partitions.stream().mapToLong(tp -> ends.getOrDefault(tp, 0L) - starts.getOrDefault(tp, 0L)).sum();
    }

    private List<TopicPartition> partitionsOf(String topic) {
        return await(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic).partitions().stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
    }

    private Map<TopicPartition, Long> offsets(List<TopicPartition> partitions, OffsetSpec spec) {
        Map<TopicPartition, OffsetSpec> request = partitions.stream()
                .collect(Collectors.toMap(Function.identity(), tp -> spec));
        Map<TopicPartition, ListOffsetsResultInfo> result = await(admin.listOffsets(request).all());
        return result.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    private <T> T await(org.apache.kafka.common.KafkaFuture<T> future) {
        try {
            return future.get(properties.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking Kafka", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Kafka could not answer: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("Kafka did not answer within " + properties.timeout(), e);
        }
    }
}
