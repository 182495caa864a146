package io.flashstock.testsupport;

import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The wait for a new topic's leaders and partitions. CI failed twice on ConsumerProcessesIT (2026-11-26): once when
 * the broker asked right after the creation did not know the topic yet, once when a producer's first batches were
 * lost to a partition its leader had not created yet (KAFKA-15591).
 */
class KafkaTopicsTest {

    private static final Node BROKER = new Node(1, "127.0.0.1", 9092);

    @Test
    void asksAgainWhileTheBrokerDoesNotKnowTheNewTopicYet() {
        var asked = new AtomicInteger();

        KafkaTopics.awaitLeaders(List.of("t"), () -> {
            if (asked.incrementAndGet() <= 2) {
                throw new ExecutionException(new UnknownTopicOrPartitionException("not yet"));
            }
            return led("t");
        });

        assertThat(asked).hasValue(3);
    }

    @Test
    void waitsUntilEveryPartitionHasALeader() {
        var asked = new AtomicInteger();

        KafkaTopics.awaitLeaders(List.of("t"), () -> asked.incrementAndGet() == 1 ? unled("t") : led("t"));

        assertThat(asked).hasValue(2);
    }

    @Test
    void asksAgainWhileTheLeaderHasNotCreatedThePartitionYet() {
        var asked = new AtomicInteger();

        KafkaTopics.awaitServed(List.of("t"), () -> {
            if (asked.incrementAndGet() <= 2) {
                throw new ExecutionException(new NotLeaderOrFollowerException("not yet"));
            }
            return null;
        });

        assertThat(asked).hasValue(3);
    }

    @Test
    void failsAtOnceOnAnErrorThatAskingAgainCannotMend() {
        var asked = new AtomicInteger();

        assertThatThrownBy(() -> KafkaTopics.awaitServed(List.of("t"), () -> {
            asked.incrementAndGet();
            throw new ExecutionException(new TopicAuthorizationException("no"));
        })).hasRootCauseInstanceOf(TopicAuthorizationException.class);

        assertThat(asked).hasValue(1);
    }

    private static Collection<TopicDescription> led(String name) {
        return List.of(new TopicDescription(name, false,
                List.of(new TopicPartitionInfo(0, BROKER, List.of(BROKER), List.of(BROKER)))));
    }

    private static Collection<TopicDescription> unled(String name) {
        return List.of(new TopicDescription(name, false,
                List.of(new TopicPartitionInfo(0, null, List.of(BROKER), List.of()))));
    }
}
