package io.flashstock.relay;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockTopics;
import io.flashstock.testsupport.TestInfrastructure;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Two relay instances (own contexts, own producers, own instance ids) on one outbox table. */
class TwoRelaysIT {

    private static final int ROWS = 10_000;
    private static final int CHUNK = 1_000;

    private static OutboxFixture outbox;
    private static TestTopic topic;
    private static InProcessRelay relayA;
    private static InProcessRelay relayB;

    @BeforeAll
    static void startRelays() {
        outbox = OutboxFixture.create("relay_two");
        topic = TestTopic.create(TestInfrastructure.get().kafkaBootstrapServers(), "relay-two-it", 3);
        relayA = InProcessRelay.start(outbox, topic, settings("relay-a"));
        relayB = InProcessRelay.start(outbox, topic, settings("relay-b"));
    }

    @AfterAll
    static void stopRelays() {
        for (InProcessRelay relay : new InProcessRelay[] {relayA, relayB}) {
            if (relay != null) {
                relay.close();
            }
        }
        if (topic != null) {
            topic.delete();
        }
        if (outbox != null) {
            outbox.drop();
        }
    }

    @Test
    void everyRowIsPublishedExactlyOnceAndBothInstancesTakePart() {
        List<OutboxFixture.Row> rows = new ArrayList<>();
        for (int inserted = 0; inserted < ROWS; inserted += CHUNK) {
            rows.addAll(outbox.insertNew("two", 40, CHUNK));
        }

        await("all rows SENT").atMost(Duration.ofSeconds(90))
                .until(() -> outbox.countByStatus(OutboxStatus.SENT) == ROWS);

        Map<String, OutboxFixture.Row> expected = rows.stream()
                .collect(Collectors.toMap(OutboxFixture.Row::eventId, Function.identity()));
        List<ConsumerRecord<String, String>> records = topic.readAll();
        // SKIP LOCKED gives each row to one claim; with leases far longer than a send nothing is claimed twice
        assertThat(records).hasSize(ROWS);
        assertThat(records).extracting(r -> new String(r.headers().lastHeader(StockTopics.EVENT_ID_HEADER).value(),
                StandardCharsets.UTF_8)).containsExactlyInAnyOrderElementsOf(expected.keySet());
        Map<String, Long> rowsPerInstance = outbox.stored("status = 'SENT'").values().stream()
                .collect(Collectors.groupingBy(OutboxFixture.Stored::claimedBy, Collectors.counting()));
        assertThat(rowsPerInstance).containsOnlyKeys("relay-a", "relay-b");
        assertThat(outbox.countByStatus(OutboxStatus.DEAD)).isZero();
    }

    private static Map<String, String> settings(String instanceId) {
        return Map.of(
                "flashstock.relay.instance-id", instanceId,
                "flashstock.relay.batch-size", "100",
                "flashstock.relay.idle-interval", "20ms");
    }
}
