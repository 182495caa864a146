package io.flashstock.relay;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockTopics;
import io.flashstock.testsupport.PrivateStack;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The broker (a private one, never the shared) stopped for 10 s while orders keep arriving: the backlog
 * grows, nothing is marked SENT without an acknowledgement, and once the broker is back everything drains
 * without a DEAD row.
 */
class BrokerOutageIT {

    private static final Duration OUTAGE = Duration.ofSeconds(10);
    private static final int ROWS_PER_TICK = 10;
    private static final Duration TICK = Duration.ofMillis(50);

    private static PrivateStack stack;
    private static OutboxFixture outbox;
    private static TestTopic topic;
    private static InProcessRelay relay;

    @BeforeAll
    static void start() {
        stack = PrivateStack.create("relay-outage").start("kafka");
        outbox = OutboxFixture.create("relay_outage");
        topic = TestTopic.create(stack.kafkaBootstrapServers(), "relay-outage-it", 3);
        relay = InProcessRelay.start(outbox, topic, Map.of(
                "flashstock.relay.batch-size", "200",
                "flashstock.relay.idle-interval", "20ms",
                "flashstock.relay.lease", "10s",
                "flashstock.relay.backoff.initial", "200ms",
                "flashstock.relay.backoff.max", "2s",
                "flashstock.relay.backlog-sample-interval", "200ms",
                "spring.kafka.producer.properties.max.block.ms", "2000",
                "spring.kafka.producer.properties.request.timeout.ms", "1500",
                "spring.kafka.producer.properties.delivery.timeout.ms", "3000"));
    }

    @AfterAll
    static void stop() {
        if (relay != null) {
            relay.close();
        }
        if (stack != null) {
            stack.close();
        }
        if (outbox != null) {
            outbox.drop();
        }
    }

    @Test
    void backlogGrowsWhileTheBrokerIsDownAndDrainsAfterwards() {
        Set<String> inserted = ConcurrentHashMap.newKeySet();
        ScheduledExecutorService orders = Executors.newSingleThreadScheduledExecutor();
        orders.scheduleAtFixedRate(() -> outbox.insertNew("outage", 20, ROWS_PER_TICK)
                .forEach(row -> inserted.add(row.eventId())), 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
        try {
            await("relay publishing").atMost(Duration.ofSeconds(30))
                    .until(() -> outbox.countByStatus(OutboxStatus.SENT) >= 200);

            stack.stop("kafka");
            Instant brokerGone = Instant.now();
            // the outage itself: orders keep arriving for OUTAGE, then the state is checked
            await("backlog grown during the outage").pollDelay(OUTAGE).atMost(OUTAGE.plusSeconds(10))
                    .untilAsserted(() -> {
                        long arrivedSince = outbox.count("created_at > ?", brokerGone);
                        assertThat(arrivedSince).isGreaterThan(OUTAGE.toSeconds() * ROWS_PER_TICK);
                        assertThat(outbox.count("created_at > ? AND status <> 'NEW'", brokerGone))
                                .as("rows written after the broker stopped cannot have been acknowledged").isZero();
                        assertThat(relay.gauge("flashstock.relay.backlog")).isGreaterThan(arrivedSince / 2.0);
                        assertThat(relay.gauge("flashstock.relay.oldest.unsent.age"))
                                .isGreaterThan(OUTAGE.toSeconds() / 2.0);
                    });

            stack.start("kafka");
        } finally {
            orders.shutdown();
        }
        await("inserts stopped").atMost(Duration.ofSeconds(10)).until(orders::isTerminated);

        await("backlog drained").atMost(Duration.ofSeconds(90))
                .until(() -> outbox.countByStatus(OutboxStatus.SENT) == inserted.size());
        assertThat(outbox.countByStatus(OutboxStatus.DEAD)).isZero();
        assertThat(relay.counter("flashstock.relay.retries")).isPositive();
        List<String> published = topic.readAll().stream()
                .map(r -> new String(r.headers().lastHeader(StockTopics.EVENT_ID_HEADER).value(), StandardCharsets.UTF_8))
                .toList();
        assertThat(published.stream().collect(Collectors.toSet())).containsAll(inserted);
        await("backlog gauge back to zero").atMost(Duration.ofSeconds(10))
                .until(() -> relay.gauge("flashstock.relay.backlog") == 0);
    }
}
