package io.flashstock.stock;

import io.flashstock.contract.StockDeducted;
import io.flashstock.stock.support.Events;
import io.flashstock.stock.support.Http;
import io.flashstock.stock.support.StockDatabase;
import io.flashstock.stock.support.StockTopic;
import io.flashstock.testsupport.TestInfrastructure;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
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
import tools.jackson.databind.JsonNode;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import static io.flashstock.stock.support.Events.deducted;
import static io.flashstock.stock.support.Events.reset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The service in-process against the real broker, database and Redis, on a topic and database of its own. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StockConsumerIT {

    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String DATABASE = TestInfrastructure.get().createDatabase("stock_consumer");
    private static StockTopic topic;

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry registry;

    private final StockDatabase db = new StockDatabase(TestInfrastructure.get().jdbcUrl(DATABASE));

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        topic = StockTopic.create("stock-consumer-it", 3);
        var infra = TestInfrastructure.get();
        infra.registerRedisAndKafka(registry);
        infra.registerDataSource(registry, DATABASE);
        registry.add("flashstock.consumer.topic", topic::name);
        registry.add("spring.kafka.consumer.group-id", () -> "stock-consumer-it-" + UUID.randomUUID());
    }

    @Autowired
    KafkaListenerEndpointRegistry listeners;

    /** Stops consuming before the topic goes, so the listener does not poll a deleted topic. */
    @AfterAll
    void deleteTopic() {
        listeners.stop();
        topic.close();
    }

    @Test
    void itemCodesThatDifferOnlyInCaseAreTwoItems() {
        String upper = Events.item("CASE").toUpperCase(Locale.ROOT);
        String lower = upper.toLowerCase(Locale.ROOT);
        topic.send(reset(upper, 100, 1), reset(lower, 50, 1), deducted(upper, 5, 1));
        topic.flush();

        await().atMost(DEADLINE).until(() -> db.quantity(upper) == 95 && db.quantity(lower) == 50);
    }

    @Test
    void theSameEventDeliveredThreeTimesIsAppliedOnce() {
        String item = Events.item("dup");
        StockDeducted twice = deducted(item, 5, 1);
        topic.send(reset(item, 100, 1), twice);
        topic.flush();
        await().atMost(DEADLINE).until(() -> db.quantity(item) == 95);
        double duplicatesBefore = registry.get("flashstock.consumer.events.duplicates").counter().count();

        // two more deliveries, in one batch or two, then a marker that shows they have been consumed
        topic.send(twice, twice, deducted(item, 2, 1));
        topic.flush();

        await().atMost(DEADLINE).untilAsserted(() -> {
            assertThat(db.level(item)).containsEntry("quantity", 93L).containsEntry("events_applied", 2L);
            assertThat(registry.get("flashstock.consumer.events.duplicates").counter().count() - duplicatesBefore)
                    .isEqualTo(2);
        });
        assertThat(db.jdbc().queryForObject("SELECT COUNT(*) FROM processed_event WHERE event_id = ?", Long.class,
                twice.eventId().toString())).isEqualTo(1);
    }

    @Test
    void poisonMessagesGoToTheDeadLetterTopicAndTheEventsAfterThemAreApplied() {
        String item = Events.item("poison");
        double deadLetteredBefore = deadLettered();
        topic.send(reset(item, 50, 1), deducted(item, 1, 1));
        topic.sendRaw(item, "{not json");
        topic.sendRaw(item, StockTopic.json(deducted(item, 1, 1)).replace("\"quantity\":1", "\"quantity\":0"));
        topic.sendRaw(item, "{\"type\":\"StockRefunded\",\"itemCode\":\"" + item + "\"}");
        topic.sendRaw(item, StockTopic.json(deducted(item + "-other", 1, 1)));
        topic.sendRaw(item, null);
        topic.send(deducted(item, 2, 1));
        topic.flush();

        await().atMost(DEADLINE).until(() -> topic.deadLetterCount() == 5);
        await().atMost(DEADLINE).untilAsserted(() ->
                assertThat(db.level(item)).containsEntry("quantity", 47L).containsEntry("events_applied", 2L));

        List<ConsumerRecord<String, byte[]>> deadLetters = topic.deadLetters();
        assertThat(deadLetters).hasSize(5).allSatisfy(record -> {
            assertThat(record.key()).isEqualTo(item);
            assertThat(header(record, "kafka_dlt-original-topic")).isEqualTo(topic.name());
            assertThat(header(record, "kafka_dlt-exception-message")).isNotBlank();
        });
        assertThat(deadLetters).extracting(r -> r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8))
                .contains("{not json").containsNull()
                .anySatisfy(value -> assertThat(value).contains("\"itemCode\":\"" + item + "-other\""));
        assertThat(deadLetters).extracting(r -> ByteBuffer.wrap(r.headers().lastHeader("kafka_dlt-original-offset")
                .value()).getLong()).doesNotHaveDuplicates();
        assertThat(deadLettered() - deadLetteredBefore).isEqualTo(5);
    }

    @Test
    void generationsDecideWhatIsAppliedAndTheRestIsRecordedAsAnomalies() {
        String item = Events.item("gen");
        String neverReset = Events.item("noreset");
        topic.send(
                reset(item, 10, 1), deducted(item, 4, 1),
                reset(item, 20, 2),
                deducted(item, 1, 1),   // taken against the replaced baseline: STALE
                deducted(item, 1, 3),   // its reset was not seen: UNKNOWN_GENERATION
                deducted(item, 15, 2), deducted(item, 10, 2), deducted(item, 5, 2),   // the 10 does not fit
                reset(item, 99, 1),     // an old reset: STALE
                deducted(neverReset, 1, 1));
        topic.flush();

        await().atMost(DEADLINE).until(() -> anomalies(item).size() == 4);
        Http.Answer level = Http.get(port, "/stock/items/" + item);
        assertThat(level.status()).isEqualTo(200);
        assertThat(level.body().get("generation").asLong()).isEqualTo(2);
        assertThat(level.body().get("baseline").asLong()).isEqualTo(20);
        assertThat(level.body().get("quantity").asLong()).isZero();
        assertThat(level.body().get("eventsApplied").asLong()).isEqualTo(2);
        // microseconds survive: Connector/J drops fractions of temporal parameters on MariaDB, text does not
        assertThat(Instant.parse(level.body().get("lastAppliedAt").asString()).getNano()).isNotZero();
        assertThat(level.body().get("anomalies").asLong()).isEqualTo(4);
        assertThat(anomalies(item)).extracting(a -> a.get("kind").asString())
                .containsExactly("STALE", "UNKNOWN_GENERATION", "INSUFFICIENT_STOCK", "STALE");
        assertThat(anomalies(item).get(2).get("quantity").asLong()).isEqualTo(10);

        await().atMost(DEADLINE).until(() -> anomalies(neverReset).size() == 1);
        assertThat(anomalies(neverReset).get(0).get("kind").asString()).isEqualTo("UNKNOWN_GENERATION");
        Http.Answer unknown = Http.get(port, "/stock/items/" + neverReset);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.contentType()).startsWith("application/problem+json");
        assertThat(unknown.body().get("code").asString()).isEqualTo("ITEM_NOT_FOUND");

        assertThat(Http.get(port, "/stock/items").body().valueStream().map(n -> n.get("itemCode").asString()))
                .contains(item).doesNotContain(neverReset);
    }

    @Test
    void deductionsThatArriveBeforeTheirResetAreAppliedWithIt() {
        String item = Events.item("early");
        String replaced = Events.item("replaced");
        // as two relays may publish them: deductions first, their reset after
        topic.send(deducted(item, 2, 1), deducted(item, 3, 1), deducted(item, 20, 1), reset(item, 10, 1),
                deducted(item, 1, 1),
                deducted(replaced, 1, 1), reset(replaced, 10, 2));
        topic.flush();

        await().atMost(DEADLINE).untilAsserted(() -> {
            assertThat(db.level(item)).containsEntry("quantity", 4L).containsEntry("events_applied", 3L);
            assertThat(anomalies(item)).extracting(a -> a.get("kind").asString()).containsExactly("INSUFFICIENT_STOCK");
            assertThat(db.level(replaced)).containsEntry("quantity", 10L).containsEntry("events_applied", 0L);
            assertThat(anomalies(replaced)).extracting(a -> a.get("kind").asString()).containsExactly("STALE");
        });
        assertThat(anomalies(item).get(0).get("quantity").asLong()).isEqualTo(20);
    }

    @Test
    void itemCodesNoRowCanHaveAreRefusedWith400() {
        for (String path : new String[]{"/stock/items/k%C3%A4se", "/stock/items/" + "a".repeat(65),
                "/stock/anomalies?itemCode=k%C3%A4se"}) {
            Http.Answer answer = Http.get(port, path);
            assertThat(answer.status()).as(path).isEqualTo(400);
            assertThat(answer.contentType()).as(path).startsWith("application/problem+json");
            assertThat(answer.body().get("code").asString()).as(path).isEqualTo("INVALID_REQUEST");
        }
    }

    @Test
    void lagLockWaitAndLatencyAreMeasured() {
        String item = Events.item("metrics");
        topic.send(reset(item, 10, 1), deducted(item, 1, 1));
        topic.flush();
        await().atMost(DEADLINE).until(() -> db.quantity(item) == 9);

        await().atMost(DEADLINE).until(() -> registry.find("kafka.consumer.fetch.manager.records.lag.max").meter() != null);
        assertThat(registry.get("flashstock.consumer.lock.wait").timer().count()).isPositive();
        assertThat(registry.get("flashstock.consumer.event.latency").timer().count()).isPositive();
        assertThat(registry.get("flashstock.consumer.events.applied").tag("type", "StockDeducted").counter().count())
                .isPositive();
        assertThat(Http.get(port, "/actuator/health/readiness").body().get("status").asString()).isEqualTo("UP");
        assertThat(Http.get(port, "/actuator/metrics/flashstock.consumer.events.dead.lettered").status())
                .isEqualTo(200);
    }

    private List<JsonNode> anomalies(String itemCode) {
        return Http.get(port, "/stock/anomalies?itemCode=" + itemCode).body().valueStream().toList();
    }

    private double deadLettered() {
        return registry.find("flashstock.consumer.events.dead.lettered").counters().stream()
                .mapToDouble(c -> c.count()).sum();
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
