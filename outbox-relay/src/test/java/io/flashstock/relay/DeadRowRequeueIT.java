package io.flashstock.relay;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockTopics;
import io.flashstock.testsupport.TestInfrastructure;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The way back for DEAD rows: {@code POST /admin/outbox/dead/requeue} puts them back to be published, one by
 * id, an item's, or all, behind the admin token; bad requests get problem+json and change nothing.
 */
class DeadRowRequeueIT {

    private static final String TOKEN = "it-admin-token";
    private static final int MAX_ATTEMPTS = 2;
    /** The topic refuses the big rows until the test raises this, as an ACL would until it is fixed. */
    private static final int TOPIC_MAX_MESSAGE_BYTES = 4_096;
    private static final int BIG_PAYLOAD_CHARS = 10_000;
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static OutboxFixture outbox;
    private static InProcessRelay relay;

    @BeforeAll
    static void startRelay() {
        outbox = OutboxFixture.forRelay("relay_requeue", TestInfrastructure.get().kafkaBootstrapServers(),
                Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(TOPIC_MAX_MESSAGE_BYTES)));
        relay = outbox.startRelay(Map.of(
                "flashstock.admin.token", TOKEN,
                "flashstock.relay.idle-interval", "20ms",
                "flashstock.relay.max-attempts", Integer.toString(MAX_ATTEMPTS),
                "flashstock.relay.backoff.initial", "20ms",
                "flashstock.relay.backoff.max", "100ms",
                "spring.kafka.producer.batch-size", "2048"));
    }

    @AfterAll
    static void stopRelay() throws Exception {
        if (outbox != null) {
            outbox.close();
        }
    }

    @Test
    void requeuedDeadRowsArePublishedOnceTheCauseIsFixed() {
        var byId = big("requeue-one");
        var byItem = big("requeue-item");
        var byAll = big("requeue-all");
        outbox.insert(List.of(byId, byItem, byAll));
        await("refused rows DEAD").atMost(DEADLINE).until(() ->
                outbox.count("aggregate_key LIKE 'requeue-%' AND status = 'DEAD'") == 3);
        outbox.topic().setConfig(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "1048588");

        assertRequeued(requeue("id=" + stored(byId).id()), 1);
        await("requeued by id: SENT").atMost(DEADLINE).until(() -> stored(byId).status() == OutboxStatus.SENT);
        assertThat(stored(byItem).status()).isEqualTo(OutboxStatus.DEAD);

        assertRequeued(requeue("itemCode=requeue-item"), 1);
        await("requeued by item: SENT").atMost(DEADLINE).until(() -> stored(byItem).status() == OutboxStatus.SENT);
        assertThat(stored(byAll).status()).isEqualTo(OutboxStatus.DEAD);

        long dead = outbox.countByStatus(OutboxStatus.DEAD);
        assertThat(dead).as("this test's row and any other test's").isPositive();
        assertRequeued(requeue("all=true"), dead);
        await("requeued with all: SENT").atMost(DEADLINE).until(() -> stored(byAll).status() == OutboxStatus.SENT);
        assertRequeued(requeue("all=true"), 0);

        Set<String> published = outbox.topic().readAll().stream().map(r -> new String(
                r.headers().lastHeader(StockTopics.EVENT_ID_HEADER).value(), StandardCharsets.UTF_8))
                .collect(Collectors.toSet());
        assertThat(published).contains(byId.eventId(), byItem.eventId(), byAll.eventId());
    }

    @Test
    void badRequestsGetProblemJsonAndChangeNothing() {
        var dead = OutboxFixture.Row.deduction("bad-input", OutboxStatus.DEAD, Instant.now());
        outbox.insert(List.of(dead));

        assertProblem(post("/admin/outbox/dead/requeue?all=true", null), 401, "ADMIN_UNAUTHORIZED");
        assertProblem(post("/admin/outbox/dead/requeue?all=true", "wrong-token"), 401, "ADMIN_UNAUTHORIZED");
        assertProblem(requeue(""), 400, "INVALID_REQUEST");
        assertProblem(requeue("all=false"), 400, "INVALID_REQUEST");
        assertProblem(requeue("all=yes"), 400, "INVALID_REQUEST");
        assertProblem(requeue("id=abc"), 400, "INVALID_REQUEST");
        assertProblem(requeue("id=0"), 400, "INVALID_REQUEST");
        assertProblem(requeue("id=99999999999999999999999"), 400, "INVALID_REQUEST");
        assertProblem(requeue("id=1&itemCode=bad-input"), 400, "INVALID_REQUEST");
        assertProblem(requeue("itemCode=bad-input&all=true"), 400, "INVALID_REQUEST");
        assertProblem(requeue("itemCode="), 400, "INVALID_REQUEST");
        assertProblem(requeue("itemCode=" + "x".repeat(65)), 400, "INVALID_REQUEST");
        assertProblem(requeue("itemCode=%7Bbad%7D"), 400, "INVALID_REQUEST");
        assertProblem(requeue("itemcode=bad-input&all=true"), 400, "INVALID_REQUEST");
        assertProblem(InProcessRelay.send(HttpRequest.newBuilder(relay.uri("/admin/outbox/dead/requeue?all=true"))
                .header("Authorization", "Bearer " + TOKEN).GET().build()), 405, "METHOD_NOT_ALLOWED");

        assertThat(stored(dead).status()).isEqualTo(OutboxStatus.DEAD);
    }

    @Test
    void relayWithoutATokenRefusesAdminRequests() {
        try (InProcessRelay tokenless = InProcessRelay.start(outbox, outbox.topic(), Map.of())) {
            assertProblem(InProcessRelay.send(HttpRequest.newBuilder(
                    tokenless.uri("/admin/outbox/dead/requeue?all=true"))
                    .header("Authorization", "Bearer ").POST(HttpRequest.BodyPublishers.noBody()).build()),
                    403, "ADMIN_DISABLED");
        }
    }

    private static OutboxFixture.Row big(String key) {
        return OutboxFixture.Row.deduction(key, OutboxStatus.NEW, Instant.now())
                .withPayload("{\"padding\":\"" + "x".repeat(BIG_PAYLOAD_CHARS) + "\"}");
    }

    private static OutboxFixture.Stored stored(OutboxFixture.Row row) {
        return outbox.stored("event_id = ?", row.eventId()).get(row.eventId());
    }

    private static HttpResponse<String> requeue(String query) {
        return post("/admin/outbox/dead/requeue" + (query.isEmpty() ? "" : "?" + query), TOKEN);
    }

    private static HttpResponse<String> post(String pathAndQuery, String token) {
        var request = HttpRequest.newBuilder(relay.uri(pathAndQuery)).POST(HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return InProcessRelay.send(request.build());
    }

    private static void assertRequeued(HttpResponse<String> response, long rows) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(JSON.readTree(response.body()).path("requeued").asLong()).isEqualTo(rows);
    }

    private static void assertProblem(HttpResponse<String> response, int status, String code) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
                assertThat(type).startsWith("application/problem+json"));
        JsonNode problem = JSON.readTree(response.body());
        assertThat(problem.path("code").asString()).as(response.body()).isEqualTo(code);
        assertThat(problem.path("status").asInt()).isEqualTo(status);
    }
}
