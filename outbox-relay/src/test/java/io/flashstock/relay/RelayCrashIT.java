package io.flashstock.relay;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockTopics;
import io.flashstock.testsupport.FreePort;
import io.flashstock.testsupport.ServiceProcess;
import io.flashstock.testsupport.TestInfrastructure;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The built relay jar killed with SIGKILL while a batch is in flight, then started again: the rows it had
 * claimed are taken again once their lease runs out, and every row ends up in the topic.
 */
class RelayCrashIT {

    private static final int ROWS = 20_000;
    private static final Duration STARTUP = Duration.ofSeconds(90);

    private static OutboxFixture outbox;
    private static ServiceProcess relay;

    @BeforeAll
    static void prepare() {
        outbox = OutboxFixture.forRelay("relay_crash");
        var infra = TestInfrastructure.get();
        relay = outbox.stopsOnClose(ServiceProcess.of("outbox-relay", FreePort.find(), List.of(
                        "--flashstock.relay.lease=4s",
                        "--flashstock.relay.batch-size=500",
                        // each batch waits ~100 ms for its acknowledgements, so a kill lands mid-batch
                        "--spring.kafka.producer.properties.linger.ms=100",
                        "--spring.kafka.producer.properties.max.block.ms=1000",
                        "--spring.kafka.producer.properties.request.timeout.ms=1000",
                        "--spring.kafka.producer.properties.delivery.timeout.ms=2000"),
                Map.of("ORDERS_DB_URL", outbox.jdbcUrl(),
                        "DB_USER", infra.dbUser(),
                        "DB_PASSWORD", infra.dbPassword(),
                        "KAFKA_BOOTSTRAP_SERVERS", outbox.topic().bootstrapServers(),
                        "STOCK_TOPIC", outbox.topic().name())));
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (outbox != null) {
            outbox.close();
        }
    }

    @Test
    void killedMidBatchThenRestartedPublishesEveryRowAtLeastOnce() throws Exception {
        Set<String> eventIds = outbox.insertNew("crash", 50, ROWS).stream()
                .map(OutboxFixture.Row::eventId).collect(Collectors.toSet());

        relay.start().awaitReady(STARTUP);
        await("some rows SENT while others are claimed").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> outbox.countByStatus(OutboxStatus.SENT) > 0 && leased() > 0);
        relay.kill();

        Map<String, OutboxFixture.Stored> inFlightAtKill =
                outbox.stored("status = 'NEW' AND claimed_by IS NOT NULL");
        long sentAtKill = outbox.countByStatus(OutboxStatus.SENT);
        assertThat(inFlightAtKill).as("rows claimed by the killed relay").isNotEmpty();
        assertThat(sentAtKill).isBetween(1L, ROWS - 1L);
        String killedInstance = inFlightAtKill.values().iterator().next().claimedBy();

        relay.start().awaitReady(STARTUP);
        await("every row SENT after the restart").atMost(Duration.ofSeconds(90))
                .until(() -> outbox.countByStatus(OutboxStatus.SENT) == ROWS);

        Map<String, OutboxFixture.Stored> retaken = outbox.stored("status = 'SENT'");
        assertThat(inFlightAtKill.keySet()).allSatisfy(eventId -> {
            OutboxFixture.Stored row = retaken.get(eventId);
            assertThat(row.attempts()).as("claimed again after the lease ran out").isGreaterThanOrEqualTo(2);
            assertThat(row.claimedBy()).isNotEqualTo(killedInstance);
        });
        Set<String> published = outbox.topic().readAll().stream()
                .map(r -> new String(r.headers().lastHeader(StockTopics.EVENT_ID_HEADER).value(), StandardCharsets.UTF_8))
                .collect(Collectors.toSet());
        assertThat(published).containsAll(eventIds);
        assertThat(outbox.countByStatus(OutboxStatus.DEAD)).isZero();

        String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + relay.port() + "/actuator/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(metrics).contains("flashstock_relay_published_rows_total", "flashstock_relay_backlog_rows",
                "flashstock_relay_publish_latency_seconds_bucket");
    }

    private static long leased() {
        return outbox.count("status = 'NEW' AND claimed_by IS NOT NULL");
    }
}
