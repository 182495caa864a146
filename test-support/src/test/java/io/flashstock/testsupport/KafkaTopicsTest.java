package io.flashstock.testsupport;

import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait for a new topic's leaders. CI failed once (ConsumerProcessesIT, 2026-11-26) when the broker
 * asked right after the creation did not know the topic yet.
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

    private static Collection<TopicDescription> led(String name) {
        return List.of(new TopicDescription(name, false,
                List.of(new TopicPartitionInfo(0, BROKER, List.of(BROKER), List.of(BROKER)))));
    }

    private static Collection<TopicDescription> unled(String name) {
        return List.of(new TopicDescription(name, false,
                List.of(new TopicPartitionInfo(0, null, List.of(BROKER), List.of()))));
    }
}
