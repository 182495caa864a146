package io.flashstock.relay;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockTopics;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** One relay against its own database and topic on the shared MariaDB and Kafka. */
class OutboxRelayIT {

    private static final int BATCH_SIZE = 100;
    private static final int MAX_ATTEMPTS = 3;
    /** The producer refuses records above this, which makes a row that can never be published. */
    private static final int MAX_REQUEST_SIZE = 20_000;
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private static OutboxFixture outbox;
    private static InProcessRelay relay;

    @BeforeAll
    static void startRelay() {
        outbox = OutboxFixture.forRelay("relay");
        relay = outbox.startRelay(Map.of(
                "flashstock.relay.batch-size", Integer.toString(BATCH_SIZE),
                "flashstock.relay.idle-interval", "20ms",
                "flashstock.relay.max-attempts", Integer.toString(MAX_ATTEMPTS),
                "flashstock.relay.backoff.initial", "20ms",
                "flashstock.relay.backoff.max", "100ms",
                "flashstock.relay.retention", "1h",
                "flashstock.relay.retention-batch-size", "7",
                "flashstock.relay.retention-interval", "200ms",
                "flashstock.relay.backlog-sample-interval", "200ms",
                "spring.kafka.producer.properties.max.request.size", Integer.toString(MAX_REQUEST_SIZE)));
    }

    @AfterAll
    static void stopRelay() throws Exception {
        if (outbox != null) {
            outbox.close();
        }
    }

    @Test
    void publishesEveryRowOnceInIdOrderPerKey() {
        List<OutboxFixture.Row> rows = new ArrayList<>();
        for (int chunk = 0; chunk < 6; chunk++) {
            rows.addAll(outbox.insertNew("normal", 30, 500));
        }
        List<OutboxFixture.Row> warmup = List.of(
                OutboxFixture.Row.deduction("warmup-jit", OutboxStatus.WARMUP, Instant.now()),
                OutboxFixture.Row.deduction("warmup-jit", OutboxStatus.WARMUP, Instant.now()));
        outbox.insert(warmup);

        await("all rows SENT").atMost(DEADLINE)
                .until(() -> outbox.count("aggregate_key LIKE 'normal-%' AND status = 'SENT'") == rows.size());

        Map<String, OutboxFixture.Stored> stored = outbox.stored("aggregate_key LIKE 'normal-%'");
        List<ConsumerRecord<String, String>> records = outbox.topic().readAll().stream()
                .filter(r -> r.key().startsWith("normal-")).toList();
        assertThat(records).hasSize(rows.size());
        Map<String, OutboxFixture.Row> byEventId = rows.stream()
                .collect(Collectors.toMap(OutboxFixture.Row::eventId, Function.identity()));
        Map<String, Integer> partitionOfKey = new HashMap<>();
        Map<String, Long> lastIdOfKey = new HashMap<>();
        for (ConsumerRecord<String, String> record : records) {
            String eventId = header(record, StockTopics.EVENT_ID_HEADER);
            OutboxFixture.Row row = byEventId.remove(eventId);
            assertThat(row).as("record of event %s published once, from an inserted row", eventId).isNotNull();
            assertThat(record.key()).isEqualTo(row.key());
            assertThat(record.value()).isEqualTo(row.payload());
            assertThat(header(record, StockTopics.EVENT_TYPE_HEADER)).isEqualTo("StockDeducted");
            assertThat(partitionOfKey.computeIfAbsent(record.key(), k -> record.partition()))
                    .as("one partition per key").isEqualTo(record.partition());
            long id = stored.get(eventId).id();
            Long previous = lastIdOfKey.put(record.key(), id);
            assertThat(previous == null || previous < id)
                    .as("key %s: row %d published after row %d", record.key(), id, previous).isTrue();
        }
        assertThat(byEventId).isEmpty();
        assertThat(stored.values()).allSatisfy(row -> assertThat(row.attempts()).isEqualTo(1));

        assertThat(outbox.stored("aggregate_key = 'warmup-jit'").values())
                .hasSize(warmup.size())
                .allSatisfy(row -> {
                    assertThat(row.status()).isEqualTo(OutboxStatus.WARMUP);
                    assertThat(row.attempts()).isZero();
                });
        assertThat(outbox.topic().readAll()).noneMatch(r -> r.key().equals("warmup-jit"));

        MeterRegistry meters = relay.bean(MeterRegistry.class);
        assertThat(meters.get("flashstock.relay.publish.latency").timer().count()).isGreaterThanOrEqualTo(rows.size());
        assertThat(meters.get("flashstock.relay.batch.size").summary().max()).isLessThanOrEqualTo(BATCH_SIZE);
        assertThat(relay.counter("flashstock.relay.published")).isGreaterThanOrEqualTo(rows.size());
        await("backlog gauge sampled at zero").atMost(DEADLINE)
                .until(() -> relay.gauge("flashstock.relay.backlog") == 0
                        && relay.gauge("flashstock.relay.oldest.unsent.age") == 0);
    }

    @Test
    void rowTheBrokerRefusesBecomesDeadAfterMaxAttemptsWithoutHoldingUpOthers() {
        var poison = OutboxFixture.Row.deduction("poison-1", OutboxStatus.NEW, Instant.now())
                .withPayload("{\"padding\":\"" + "x".repeat(MAX_REQUEST_SIZE) + "\"}");
        outbox.insert(List.of(poison));
        List<OutboxFixture.Row> others = outbox.insertNew("poison-neighbour", 3, 50);

        await("poison row DEAD").atMost(DEADLINE)
                .until(() -> outbox.count("event_id = ? AND status = 'DEAD'", poison.eventId()) == 1);
        OutboxFixture.Stored dead = outbox.stored("event_id = ?", poison.eventId()).get(poison.eventId());
        assertThat(dead.attempts()).isEqualTo(MAX_ATTEMPTS);
        assertThat(dead.lastError()).contains("RecordTooLargeException");
        await("neighbours SENT").atMost(DEADLINE)
                .until(() -> outbox.count("aggregate_key LIKE 'poison-neighbour-%' AND status = 'SENT'") == others.size());
        assertThat(relay.counter("flashstock.relay.marked.dead")).isEqualTo(1);
        assertThat(relay.counter("flashstock.relay.retries")).isGreaterThanOrEqualTo(MAX_ATTEMPTS - 1);
        await("DEAD gauge sampled").atMost(DEADLINE).until(() ->
                relay.gauge("flashstock.relay.dead.rows") == outbox.countByStatus(OutboxStatus.DEAD));
        assertThat(outbox.topic().readAll()).noneMatch(r -> r.key().equals("poison-1"));
    }

    @Test
    void retentionDeletesOnlySentRowsPastTheRetentionPeriod() {
        Instant now = Instant.now();
        List<OutboxFixture.Row> expired = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            expired.add(OutboxFixture.Row.deduction("retention-old", OutboxStatus.SENT, now.minus(Duration.ofHours(3)))
                    .withSentAt(now.minus(Duration.ofHours(2))));
        }
        List<OutboxFixture.Row> kept = List.of(
                OutboxFixture.Row.deduction("retention-recent", OutboxStatus.SENT, now.minus(Duration.ofHours(3)))
                        .withSentAt(now.minus(Duration.ofMinutes(10))),
                OutboxFixture.Row.deduction("retention-dead", OutboxStatus.DEAD, now.minus(Duration.ofHours(3))));
        double deletedBefore = relay.counter("flashstock.relay.retention.deleted");
        outbox.insert(expired);
        outbox.insert(kept);

        await("expired SENT rows deleted").atMost(DEADLINE)
                .until(() -> outbox.count("aggregate_key = 'retention-old'") == 0);
        assertThat(outbox.count("aggregate_key IN ('retention-recent', 'retention-dead')"))
                .isEqualTo(kept.size());
        // 20 rows in statements of at most 7
        assertThat(relay.counter("flashstock.relay.retention.deleted") - deletedBefore).isEqualTo(expired.size());
    }

    private static String header(ConsumerRecord<String, String> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
