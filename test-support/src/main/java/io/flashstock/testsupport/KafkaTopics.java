package io.flashstock.testsupport;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.awaitility.Awaitility.await;

/**
 * Creates a test's own topics and waits until every partition has a leader and its broker serves it. Producing
 * the instant a topic exists races the broker's creation of the partition: the first batch fails with
 * NOT_LEADER_OR_FOLLOWER, a later batch of the same idempotent producer is appended before it, and the first one is
 * then refused with OUT_OF_ORDER_SEQUENCE_NUMBER until its delivery timeout drops it (KAFKA-15591): records lost
 * silently, although acks=all.
 */
public final class KafkaTopics {

    private static final Duration LEADERS_DEADLINE = Duration.ofSeconds(30);

    private KafkaTopics() {
    }

    public static void create(String bootstrapServers, Collection<NewTopic> topics) {
        List<String> names = topics.stream().map(NewTopic::name).toList();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.createTopics(topics).all().get(LEADERS_DEADLINE.toSeconds(), TimeUnit.SECONDS);
            awaitLeaders(names, () -> admin.describeTopics(names).allTopicNames()
                    .get(LEADERS_DEADLINE.toSeconds(), TimeUnit.SECONDS).values());
            awaitServed(names, () -> admin.listOffsets(latestOffsets(admin, names)).all()
                    .get(LEADERS_DEADLINE.toSeconds(), TimeUnit.SECONDS));
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("could not create topics " + names, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static void awaitLeaders(List<String> names, Callable<Collection<TopicDescription>> describe) {
        await("leaders of " + names).atMost(LEADERS_DEADLINE).pollInterval(Duration.ofMillis(50))
                .until(() -> everyPartitionLed(describe));
    }

    /**
     * Until the leaders answer for every partition: a broker answers ListOffsets only for a partition it has
     * created, as it appends a produce request only to one.
     */
    static void awaitServed(List<String> names, Callable<?> listOffsets) {
        await("partitions of " + names + " served").atMost(LEADERS_DEADLINE).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    try {
                        listOffsets.call();
                        return true;
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof RetriableException) {
                            return false;
                        }
                        throw e;
                    }
                });
    }

    /** Every partition of the topics, each asked for its end offset: the argument of {@code Admin.listOffsets}. */
    public static Map<TopicPartition, OffsetSpec> latestOffsets(Admin admin, List<String> names) throws Exception {
        return admin.describeTopics(names).allTopicNames().get(LEADERS_DEADLINE.toSeconds(), TimeUnit.SECONDS)
                .values().stream()
                .flatMap(t -> t.partitions().stream().map(p -> new TopicPartition(t.name(), p.partition())))
                .collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
    }

    private static boolean everyPartitionLed(Callable<Collection<TopicDescription>> describe) throws Exception {
        try {
            return describe.call().stream().flatMap(t -> t.partitions().stream()).allMatch(p -> p.leader() != null);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                // the broker asked has not yet heard of the topic the controller just created
                return false;
            }
            throw e;
        }
    }
}
