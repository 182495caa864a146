package io.flashstock.relay;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockTopics;
import io.flashstock.testsupport.PrivateStack;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The broker (a private one, never the shared) stopped while orders keep arriving, and kept stopped until the
 * relay has claimed a row written during the outage more than {@code max-attempts} times: the backlog grows,
 * nothing is marked SENT without an acknowledgement, and once the broker is back everything drains without
 * a DEAD row. That row is larger than its topic accepts, so after the outage the broker refuses it: a failure
 * of its own, its first, which must not make it DEAD; once the topic takes it (as after an ACL fixed), it is
 * published.
 */
class BrokerOutageIT {

    /** Own failures before DEAD: 23 s of backoff after the first, so a check starved on a loaded box still sees NEW. */
    private static final int MAX_ATTEMPTS = 6;
    private static final int ROWS_PER_TICK = 10;
    private static final Duration TICK = Duration.ofMillis(50);
    /** The topic's limit while the refused row waits; the producer's own batches stay below it. */
    private static final int TOPIC_MAX_MESSAGE_BYTES = 4_096;
    private static final int PRODUCER_BATCH_SIZE = 2_048;
    private static final int REFUSED_PAYLOAD_CHARS = 10_000;
    private static final Duration OUTAGE_DEADLINE = Duration.ofMinutes(3);

    private static PrivateStack stack;
    private static OutboxFixture outbox;
    private static InProcessRelay relay;

    @BeforeAll
    static void start() {
        stack = PrivateStack.create("relay-outage").start("kafka");
        outbox = OutboxFixture.forRelay("relay_outage", stack.kafkaBootstrapServers(),
                Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(TOPIC_MAX_MESSAGE_BYTES)));
        relay = outbox.startRelay(Map.ofEntries(
                Map.entry("flashstock.relay.batch-size", "200"),
                Map.entry("flashstock.relay.idle-interval", "20ms"),
                Map.entry("flashstock.relay.lease", "10s"),
                Map.entry("flashstock.relay.max-attempts", Integer.toString(MAX_ATTEMPTS)),
                // after its first own failure the refused row waits 1 s, then 2, 4, 8, 8 s: time to see it NEW
                Map.entry("flashstock.relay.backoff.initial", "1s"),
                Map.entry("flashstock.relay.backoff.max", "8s"),
                Map.entry("flashstock.relay.backlog-sample-interval", "200ms"),
                Map.entry("spring.kafka.producer.batch-size", Integer.toString(PRODUCER_BATCH_SIZE)),
                Map.entry("spring.kafka.producer.properties.max.block.ms", "2000"),
                Map.entry("spring.kafka.producer.properties.request.timeout.ms", "1500"),
                Map.entry("spring.kafka.producer.properties.delivery.timeout.ms", "3000")));
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (outbox != null) {
                outbox.close();
            }
        } finally {
            if (stack != null) {
                stack.close();
            }
        }
    }

    @Test
    void outageClaimsNeverMakeARowDeadAndTheBacklogDrainsAfterwards() {
        Set<String> inserted = ConcurrentHashMap.newKeySet();
        AtomicBoolean inserting = new AtomicBoolean(true);
        ScheduledExecutorService orders = Executors.newSingleThreadScheduledExecutor();
        orders.scheduleAtFixedRate(() -> {
            if (inserting.get()) {
                outbox.insertNew("outage", 20, ROWS_PER_TICK).forEach(row -> inserted.add(row.eventId()));
            }
        }, 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
        var refused = OutboxFixture.Row.deduction("refused-1", OutboxStatus.NEW, Instant.now())
                .withPayload("{\"padding\":\"" + "x".repeat(REFUSED_PAYLOAD_CHARS) + "\"}");
        try {
            await("relay publishing").atMost(Duration.ofSeconds(30))
                    .until(() -> outbox.countByStatus(OutboxStatus.SENT) >= 200);
            // during an outage the relay claims the oldest unsent rows again and again (newer ones would
            // overtake them), so the refused row goes first: inserts pause until all is sent, and resume after it
            inserting.set(false);
            await("everything sent before the outage").atMost(Duration.ofSeconds(30))
                    .until(() -> outbox.countByStatus(OutboxStatus.SENT) == inserted.size());

            stack.stop("kafka");
            Instant brokerGone = Instant.now();
            outbox.insert(List.of(refused));
            inserting.set(true);
            // the outage lasts until the relay has claimed a row of the outage past max-attempts
            await("a row claimed more than max-attempts times during the outage").atMost(OUTAGE_DEADLINE)
                    .until(() -> stored(refused).attempts() > MAX_ATTEMPTS);
            await("backlog and its age sampled during the outage").atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> {
                        Instant sampledBy = Instant.now().minusSeconds(1);
                        assertThat(relay.gauge("flashstock.relay.backlog"))
                                .isGreaterThanOrEqualTo(outbox.count("created_at > ? AND created_at < ?",
                                        brokerGone, sampledBy));
                        assertThat(relay.gauge("flashstock.relay.oldest.unsent.age"))
                                .isGreaterThanOrEqualTo(Duration.between(brokerGone, sampledBy).toSeconds());
                    });
            assertThat(outbox.count("created_at > ? AND status <> 'NEW'", brokerGone))
                    .as("rows written after the broker stopped cannot have been acknowledged").isZero();
            assertThat(stored(refused).lastError()).as("failed on the broker, not on the record")
                    .doesNotContain("RecordTooLarge");

            // started beside the check, not before it: scripts/stack returns only once its own readiness probe
            // (a Kafka tool's JVM) is done, which on a loaded box came 30 s after the relay was publishing again,
            // long enough for the row's six own failures (23 s of backoff) to make it DEAD unseen
            CompletableFuture<Void> brokerBack = CompletableFuture.runAsync(() -> stack.start("kafka"));
            await("the refused row's first failure of its own").atMost(Duration.ofSeconds(90))
                    .until(() -> String.valueOf(stored(refused).lastError()).contains("RecordTooLargeException"));
            assertThat(stored(refused).status()).as("its first failure of its own, after %d claims",
                    stored(refused).attempts()).isEqualTo(OutboxStatus.NEW);
            brokerBack.join();
            outbox.topic().setConfig(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "1048588");
        } finally {
            orders.shutdown();
        }
        await("inserts stopped").atMost(Duration.ofSeconds(10)).until(orders::isTerminated);

        await("backlog drained").atMost(Duration.ofSeconds(90))
                .until(() -> outbox.countByStatus(OutboxStatus.SENT) == inserted.size() + 1);
        assertThat(outbox.countByStatus(OutboxStatus.DEAD)).isZero();
        assertThat(relay.counter("flashstock.relay.retries")).isPositive();
        List<String> published = outbox.topic().readAll().stream()
                .map(r -> new String(r.headers().lastHeader(StockTopics.EVENT_ID_HEADER).value(), StandardCharsets.UTF_8))
                .toList();
        assertThat(published.stream().collect(Collectors.toSet())).containsAll(inserted).contains(refused.eventId());
        await("backlog gauge back to zero").atMost(Duration.ofSeconds(10))
                .until(() -> relay.gauge("flashstock.relay.backlog") == 0);
    }

    private static OutboxFixture.Stored stored(OutboxFixture.Row row) {
        return outbox.stored("event_id = ?", row.eventId()).get(row.eventId());
    }
}
