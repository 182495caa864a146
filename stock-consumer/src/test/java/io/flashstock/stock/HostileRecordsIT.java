package io.flashstock.stock;

import io.flashstock.contract.StockDeducted;
import io.flashstock.contract.StockEvent;
import io.flashstock.contract.StockReset;
import io.flashstock.stock.support.Events;
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
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import static io.flashstock.stock.support.Events.deducted;
import static io.flashstock.stock.support.Events.reset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Records that can never be applied, on one partition between good ones: one the database refuses every time, and
 * events with generations or times order-api never writes. Each must end in the dead-letter topic with its reason,
 * change nothing, and leave the partition flowing.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileRecordsIT {

    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final String DATABASE = TestInfrastructure.get().createDatabase("stock_hostile");
    private static StockTopic topic;

    @Autowired
    MeterRegistry registry;

    @Autowired
    KafkaListenerEndpointRegistry listeners;

    private final StockDatabase db = new StockDatabase(TestInfrastructure.get().jdbcUrl(DATABASE));

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        topic = StockTopic.create("stock-hostile-it", 1);
        var infra = TestInfrastructure.get();
        infra.registerRedisAndKafka(registry);
        infra.registerDataSource(registry, DATABASE);
        registry.add("flashstock.consumer.topic", topic::name);
        registry.add("flashstock.consumer.retry.initial-interval", () -> "200ms");
        registry.add("spring.kafka.consumer.group-id", () -> "stock-hostile-it-" + UUID.randomUUID());
    }

    @AfterAll
    void deleteTopic() {
        listeners.stop();
        topic.close();
    }

    @Test
    void aRecordTheDatabaseRefusesEveryTimeIsRetriedThenDeadLetteredAndThePartitionMovesOn() {
        String item = Events.item("refused");
        StockDeducted refused = deducted(item, 7, 1);
        // the database refuses this one row every time, as it refuses a value out of a column's range
        db.jdbc().execute("CREATE TRIGGER refuse_one BEFORE INSERT ON processed_event FOR EACH ROW"
                + " IF NEW.event_id = '" + refused.eventId() + "' THEN"
                + " SIGNAL SQLSTATE '22003' SET MESSAGE_TEXT = 'refused by the test trigger'; END IF");
        double retriesBefore = retries();

        topic.send(reset(item, 100, 1), deducted(item, 1, 1), refused, deducted(item, 2, 1));
        topic.flush();

        await("the good records around it are applied").atMost(DEADLINE).untilAsserted(() ->
                assertThat(db.level(item)).containsEntry("quantity", 97L).containsEntry("events_applied", 2L));
        ConsumerRecord<String, byte[]> deadLetter = await().atMost(DEADLINE).pollInterval(Duration.ofSeconds(1))
                .until(() -> deadLetters().get(refused.eventId().toString()), r -> r != null);
        assertThat(deadLetter.key()).isEqualTo(item);
        assertThat(header(deadLetter, "kafka_dlt-exception-message")).contains("refused by the test trigger");
        assertThat(header(deadLetter, "kafka_dlt-original-topic")).isEqualTo(topic.name());
        assertThat(retries() - retriesBefore).as("failed attempts before it was dead-lettered").isBetween(3.0, 10.0);
        assertThat(db.jdbc().queryForObject("SELECT COUNT(*) FROM processed_event WHERE event_id = ?", Long.class,
                refused.eventId().toString())).isZero();
    }

    @Test
    void generationsOrderApiNeverIssuesAreDeadLetteredAndCannotFreezeTheItem() {
        String item = Events.item("generations");
        String unseen = Events.item("generations-new");
        Instant now = Instant.now();
        Map<String, StockEvent> hostile = Map.of(
                "a reset no later reset could pass", resetAt(item, Long.MAX_VALUE, now),
                "a first reset far beyond any generation", resetAt(unseen, Long.MAX_VALUE, now),
                "a generation order-api never issues", resetAt(item, 0, now),
                "a deduction of a generation far ahead", deductedAt(item, Long.MAX_VALUE / 2, now));

        topic.send(reset(item, 100, 1));
        hostile.values().forEach(topic::send);
        topic.send(deducted(item, 4, 1), reset(item, 50, 2), deducted(item, 3, 2));
        topic.flush();

        await("the item's real events after them are applied").atMost(DEADLINE).untilAsserted(() ->
                assertThat(db.level(item)).containsEntry("generation", 2L).containsEntry("baseline", 50L)
                        .containsEntry("quantity", 47L).containsEntry("events_applied", 1L));
        assertDeadLetteredWithReasons(hostile);
        assertThat(db.level(unseen)).isEmpty();
        assertThat(anomalies(item)).isZero();
    }

    @Test
    void timesOutsideTheDedupeWindowOrTheDatabaseRangeAreDeadLetteredBeforeTheyReachTheDatabase() {
        String item = Events.item("times");
        Instant now = Instant.now();
        Map<String, StockEvent> hostile = Map.of(
                "a time past the DATETIME range", resetAt(item, 2, Instant.parse("+10000-01-01T00:00:00Z")),
                "a time before the DATETIME range", deductedAt(item, 1, Instant.parse("0500-01-01T00:00:00Z")),
                "a time older than the dedupe window", deductedAt(item, 1, now.minus(Duration.ofDays(400))));

        topic.send(reset(item, 100, 1));
        hostile.values().forEach(topic::send);
        topic.send(deducted(item, 4, 1), reset(item, 50, 2), deducted(item, 3, 2));
        topic.flush();

        await("the item's real events after them are applied").atMost(DEADLINE).untilAsserted(() ->
                assertThat(db.level(item)).containsEntry("generation", 2L).containsEntry("baseline", 50L)
                        .containsEntry("quantity", 47L).containsEntry("events_applied", 1L));
        assertDeadLetteredWithReasons(hostile);
        assertThat(anomalies(item)).isZero();
    }

    private void assertDeadLetteredWithReasons(Map<String, StockEvent> hostile) {
        Map<String, ConsumerRecord<String, byte[]>> deadLetters = await().atMost(DEADLINE)
                .pollInterval(Duration.ofSeconds(1))
                .until(this::deadLetters, found -> hostile.values().stream()
                        .allMatch(e -> found.containsKey(e.eventId().toString())));
        hostile.forEach((what, event) -> assertThat(
                header(deadLetters.get(event.eventId().toString()), "kafka_dlt-exception-message"))
                .as(what).isNotBlank());
    }

    private long anomalies(String item) {
        return db.jdbc().queryForObject("SELECT COUNT(*) FROM stock_anomaly WHERE item_code = ?", Long.class, item);
    }

    private static StockReset resetAt(String item, long generation, Instant at) {
        return new StockReset(UUID.randomUUID(), item, 5, null, generation, at);
    }

    private static StockDeducted deductedAt(String item, long generation, Instant at) {
        return new StockDeducted(UUID.randomUUID(), UUID.randomUUID().toString(), item, "user-1", 1, generation, at);
    }

    /** The dead letters of this class's topic by the event id header they kept. */
    private Map<String, ConsumerRecord<String, byte[]>> deadLetters() {
        List<ConsumerRecord<String, byte[]>> records = topic.deadLetters();
        return records.stream().filter(r -> r.headers().lastHeader("event-id") != null)
                .collect(Collectors.toMap(r -> header(r, "event-id"), Function.identity(), (a, b) -> b));
    }

    private double retries() {
        return registry.get("flashstock.consumer.batch.retries").counter().count();
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
