package io.flashstock.order.dashboard;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Records of the stock topic that stock-consumer's group has not committed yet: the events not applied in the stock
 * database, since the consumer commits after its transaction. Three small admin calls, so the dashboard reads it every
 * second; the consumer's own client metrics give only the fetch position, and register per-partition lag late.
 */
class ConsumerLag {

    private final Admin admin;
    private final String topic;
    private final String group;
    private final Duration timeout;

    ConsumerLag(Admin admin, String topic, String group, Duration timeout) {
        this.admin = admin;
        this.topic = topic;
        this.group = group;
        this.timeout = timeout;
    }

    /** The lag summed over partitions, or null when Kafka did not answer. */
    Double read() {
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = await(
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
            Map<TopicPartition, OffsetSpec> latest = await(admin.describeTopics(List.of(topic))
                    .allTopicNames()).get(topic).partitions().stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .collect(Collectors.toMap(Function.identity(), tp -> OffsetSpec.latest()));
            Map<TopicPartition, ListOffsetsResultInfo> ends = await(admin.listOffsets(latest).all());
            long lag = 0;
            for (var end : ends.entrySet()) {
                OffsetAndMetadata done = committed.get(end.getKey());
                lag += Math.max(0, end.getValue().offset() - (done == null ? 0 : done.offset()));
            }
            return (double) lag;
        } catch (ExecutionException | TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private <T> T await(KafkaFuture<T> future) throws ExecutionException, TimeoutException, InterruptedException {
        return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
