package io.flashstock.testsupport;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * Creates a test's own topics and waits until every partition has a leader. Producing the instant a
 * topic exists races the leader election: the first batch fails with NOT_LEADER_OR_FOLLOWER and an
 * idempotent producer can then wedge on OUT_OF_ORDER_SEQUENCE_NUMBER retries.
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
