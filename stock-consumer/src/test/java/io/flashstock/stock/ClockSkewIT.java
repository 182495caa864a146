package io.flashstock.stock;

import io.flashstock.contract.StockDeducted;
import io.flashstock.contract.StockEvent;
import io.flashstock.contract.StockReset;
import io.flashstock.contract.Utc;
import io.flashstock.stock.support.Events;
import io.flashstock.stock.support.StockDatabase;
import io.flashstock.stock.support.StockTopic;
import io.flashstock.testsupport.TestInfrastructure;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Events stamped by an order-api whose clock runs ahead of this service's: each is a durable, acknowledged order
 * (or the reset its generation hangs on), so it is applied, and the skew is counted instead of losing the event.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClockSkewIT {

    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String DATABASE = TestInfrastructure.get().createDatabase("stock_skew");
    private static StockTopic topic;

    @Autowired
    MeterRegistry registry;

    @Autowired
    KafkaListenerEndpointRegistry listeners;

    private final StockDatabase db = new StockDatabase(TestInfrastructure.get().jdbcUrl(DATABASE));

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        topic = StockTopic.create("stock-skew-it", 1);
        var infra = TestInfrastructure.get();
        infra.registerRedisAndKafka(registry);
        infra.registerDataSource(registry, DATABASE);
        registry.add("flashstock.consumer.topic", topic::name);
        registry.add("spring.kafka.consumer.group-id", () -> "stock-skew-it-" + UUID.randomUUID());
    }

    @AfterAll
    void deleteTopic() {
        listeners.stop();
        topic.close();
    }

    @Test
    void aResetAndADeductionTenMinutesAheadOfTheClockAreAppliedNotDeadLettered() {
        String item = Events.item("ahead");
        Instant ahead = Instant.now().plus(Duration.ofMinutes(10));
        StockReset reset = new StockReset(UUID.randomUUID(), item, 100, null, 1, ahead);
        StockDeducted deducted = new StockDeducted(UUID.randomUUID(), UUID.randomUUID().toString(), item, "user-1",
                3, 1, ahead);

        topic.send(reset, deducted);
        topic.flush();

        await("both events applied").atMost(DEADLINE).untilAsserted(() ->
                assertThat(db.level(item)).containsEntry("generation", 1L).containsEntry("quantity", 97L)
                        .containsEntry("events_applied", 1L));
        assertThat(topic.deadLetterCount()).isZero();
        assertThat(registry.get("flashstock.consumer.events.clock.ahead").counter().count()).isEqualTo(2);
        // the dedupe row outlives the event's own window: until occurredAt + the window, when triage starts to
        // refuse the event as too old, a redelivery still finds it processed
        for (StockEvent event : List.of(reset, deducted)) {
            LocalDateTime keptFrom = db.jdbc().queryForObject(
                    "SELECT processed_at FROM processed_event WHERE event_id = ?", LocalDateTime.class,
                    event.eventId().toString());
            assertThat(Utc.fromColumn(keptFrom)).as(event.type())
                    .isAfterOrEqualTo(ahead.truncatedTo(ChronoUnit.MICROS));
        }
    }
}
