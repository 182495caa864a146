package io.flashstock.relay;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockTopics;
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
    private static InProcessRelay relayA;
    private static InProcessRelay relayB;

    @BeforeAll
    static void startRelays() {
        outbox = OutboxFixture.forRelay("relay_two");
        relayA = outbox.startRelay(settings("relay-a"));
        relayB = outbox.startRelay(settings("relay-b"));
    }

    @AfterAll
    static void stopRelays() throws Exception {
        if (outbox != null) {
            outbox.close();
        }
    }

    /**
     * The relays' contract is at least once, with duplicates the consumer can drop: every event published,
     * and a record published twice is the same event (same event id, key and payload), so it lands on the
     * same partition and stock-consumer's dedupe by event id applies it once. How many duplicates there are
     * is not part of it.
     */
    @Test
    void everyRowIsPublishedAtLeastOnceDuplicatesAreTheSameEventAndBothInstancesTakePart() {
        List<OutboxFixture.Row> rows = new ArrayList<>();
        for (int inserted = 0; inserted < ROWS; inserted += CHUNK) {
            rows.addAll(outbox.insertNew("two", 40, CHUNK));
        }

        await("all rows SENT").atMost(Duration.ofSeconds(90))
                .until(() -> outbox.countByStatus(OutboxStatus.SENT) == ROWS);

        Map<String, OutboxFixture.Row> expected = rows.stream()
                .collect(Collectors.toMap(OutboxFixture.Row::eventId, Function.identity()));
        Map<String, List<ConsumerRecord<String, String>>> recordsByEvent = outbox.topic().readAll().stream()
                .collect(Collectors.groupingBy(r -> new String(
                        r.headers().lastHeader(StockTopics.EVENT_ID_HEADER).value(), StandardCharsets.UTF_8)));
        assertThat(recordsByEvent.keySet()).as("every event published, and nothing else")
                .containsExactlyInAnyOrderElementsOf(expected.keySet());
        recordsByEvent.forEach((eventId, records) -> assertThat(records).as("records of event %s", eventId)
                .allSatisfy(record -> {
                    assertThat(record.key()).isEqualTo(expected.get(eventId).key());
                    assertThat(record.value()).isEqualTo(expected.get(eventId).payload());
                    assertThat(record.partition()).isEqualTo(records.get(0).partition());
                }));
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
