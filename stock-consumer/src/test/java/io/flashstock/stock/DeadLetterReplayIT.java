package io.flashstock.stock;

import io.flashstock.contract.StockDeducted;
import io.flashstock.contract.StockReset;
import io.flashstock.stock.support.Events;
import io.flashstock.stock.support.Http;
import io.flashstock.stock.support.StockDatabase;
import io.flashstock.stock.support.StockTopic;
import io.flashstock.testsupport.TestInfrastructure;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import static io.flashstock.stock.support.Events.deducted;
import static io.flashstock.stock.support.Events.reset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The way back from the dead-letter topic: {@code POST /admin/dead-letters/replay} applies what can now be applied
 * through the dedupe table, so a second replay applies nothing twice, and reports what is still dead.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeadLetterReplayIT {

    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final String TOKEN = "replay-it-token";
    private static final String REPLAY = "/admin/dead-letters/replay";
    private static final String DATABASE = TestInfrastructure.get().createDatabase("stock_replay");
    private static StockTopic topic;

    @LocalServerPort
    int port;

    @Autowired
    KafkaListenerEndpointRegistry listeners;

    private final StockDatabase db = new StockDatabase(TestInfrastructure.get().jdbcUrl(DATABASE));

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        topic = StockTopic.create("stock-replay-it", 3);
        var infra = TestInfrastructure.get();
        infra.registerRedisAndKafka(registry);
        infra.registerDataSource(registry, DATABASE);
        registry.add("flashstock.consumer.topic", topic::name);
        registry.add("flashstock.consumer.retry.initial-interval", () -> "200ms");
        registry.add("flashstock.admin.token", () -> TOKEN);
        registry.add("spring.kafka.consumer.group-id", () -> "stock-replay-it-" + UUID.randomUUID());
    }

    @AfterAll
    void deleteTopic() {
        listeners.stop();
        topic.close();
    }

    @Test
    void deadLettersAreReplayedOnceEvenWhenReplayedTwiceAndTheUnprocessableStayDead() {
        String refusedItem = Events.item("refused");
        StockDeducted refused = deducted(refusedItem, 7, 1);
        db.jdbc().execute("CREATE TRIGGER refuse_one BEFORE INSERT ON processed_event FOR EACH ROW"
                + " IF NEW.event_id = '" + refused.eventId() + "' THEN"
                + " SIGNAL SQLSTATE '22003' SET MESSAGE_TEXT = 'refused by the test trigger'; END IF");
        topic.send(reset(refusedItem, 100, 1), refused, deducted(refusedItem, 2, 1));
        topic.flush();
        await("the refused deduction dead-lettered by the error handler").atMost(DEADLINE)
                .until(() -> topic.deadLetterCount() == 1);
        await().atMost(DEADLINE).untilAsserted(() -> assertThat(db.level(refusedItem))
                .containsEntry("quantity", 98L).containsEntry("events_applied", 1L));
        db.jdbc().execute("DROP TRIGGER refuse_one");

        // as the former clock-skew rule left them: a reset and a deduction of its generation, 10 minutes ahead
        String skewedItem = Events.item("skewed");
        Instant ahead = Instant.now().plus(Duration.ofMinutes(10));
        topic.sendDeadLetter(skewedItem, StockTopic.json(new StockReset(UUID.randomUUID(), skewedItem, 50, null, 1,
                ahead)));
        topic.sendDeadLetter(skewedItem, StockTopic.json(new StockDeducted(UUID.randomUUID(),
                UUID.randomUUID().toString(), skewedItem, "user-1", 5, 1, ahead)));
        topic.sendDeadLetter(skewedItem, "{not json");
        // a deduction of that generation, held until its reset is seen
        topic.send(deducted(skewedItem, 2, 1));
        topic.flush();
        await("the deduction held for its reset").atMost(DEADLINE).until(() -> db.jdbc().queryForObject(
                "SELECT COUNT(*) FROM stock_anomaly WHERE item_code = ? AND kind = 'UNKNOWN_GENERATION'", Long.class,
                skewedItem) == 1);

        Http.Answer first = Http.post(port, REPLAY, TOKEN);
        assertThat(first.status()).as(first.body().toString()).isEqualTo(200);
        assertThat(first.body().get("read").asLong()).isEqualTo(4);
        assertThat(first.body().get("replayed").asLong()).isEqualTo(3);
        assertThat(first.body().get("released").asLong()).isEqualTo(1);
        assertThat(first.body().get("alreadyApplied").asLong()).isZero();
        assertThat(first.body().get("stillDead").asLong()).isEqualTo(1);
        assertThat(first.body().get("stillDeadRecords").get(0).get("key").asString()).isEqualTo(skewedItem);
        assertThat(first.body().get("stillDeadRecords").get(0).get("reason").asString()).isNotBlank();
        assertThat(db.level(refusedItem)).containsEntry("quantity", 91L).containsEntry("events_applied", 2L);
        assertThat(db.level(skewedItem)).containsEntry("quantity", 43L).containsEntry("events_applied", 2L);

        Http.Answer second = Http.post(port, REPLAY, TOKEN);
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.body().get("read").asLong()).isEqualTo(4);
        assertThat(second.body().get("replayed").asLong()).isZero();
        assertThat(second.body().get("released").asLong()).isZero();
        assertThat(second.body().get("alreadyApplied").asLong()).isEqualTo(3);
        assertThat(second.body().get("stillDead").asLong()).isEqualTo(1);
        assertThat(db.level(refusedItem)).containsEntry("quantity", 91L).containsEntry("events_applied", 2L);
        assertThat(db.level(skewedItem)).containsEntry("quantity", 43L).containsEntry("events_applied", 2L);
        assertThat(db.jdbc().queryForObject("SELECT COUNT(*) FROM processed_event WHERE event_id = ?", Long.class,
                refused.eventId().toString())).isEqualTo(1);
        assertThat(topic.deadLetterCount()).as("the dead-letter topic keeps its records").isEqualTo(4);
    }

    @Test
    void theReplayNeedsTheAdminToken() {
        for (String token : new String[]{null, "wrong-token"}) {
            Http.Answer answer = Http.post(port, REPLAY, token);
            assertThat(answer.status()).as(token).isEqualTo(401);
            assertThat(answer.contentType()).as(token).startsWith("application/problem+json");
            assertThat(answer.body().get("code").asString()).as(token).isEqualTo("ADMIN_UNAUTHORIZED");
        }
    }
}
