package io.flashstock.stock;

import io.flashstock.stock.support.Events;
import io.flashstock.stock.support.StockDatabase;
import io.flashstock.stock.support.StockTopic;
import io.flashstock.testsupport.PrivateStack;
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
import java.util.UUID;
import java.util.stream.IntStream;

import static io.flashstock.stock.support.Events.deducted;
import static io.flashstock.stock.support.Events.reset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The stock database of a private MariaDB is stopped while events keep arriving, and stays down until the consumer
 * has met the outage and retried: the outage is that condition, not a length of time.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatabaseOutageIT {

    /** Failed attempts the consumer must have made against the stopped database before it is started again. */
    private static final int RETRIES_DURING_OUTAGE = 3;
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final int BEFORE = 100;
    private static final int DURING = 200;

    private static PrivateStack stack;
    private static StockTopic topic;

    @Autowired
    MeterRegistry registry;

    @Autowired
    KafkaListenerEndpointRegistry listeners;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        stack = PrivateStack.create("stock-consumer-outage").start("mariadb");
        topic = StockTopic.create("stock-outage-it", 3);
        var infra = TestInfrastructure.get();
        infra.registerRedisAndKafka(registry);
        registry.add("spring.datasource.url", () -> stack.jdbcUrl("stock"));
        registry.add("spring.datasource.username", infra::dbUser);
        registry.add("spring.datasource.password", infra::dbPassword);
        registry.add("spring.datasource.hikari.connection-timeout", () -> "2000");
        registry.add("flashstock.consumer.topic", topic::name);
        registry.add("flashstock.consumer.retry.initial-interval", () -> "200ms");
        registry.add("flashstock.consumer.retry.max-interval", () -> "2s");
        registry.add("spring.kafka.consumer.group-id", () -> "stock-outage-it-" + UUID.randomUUID());
    }

    /** Stops consuming before the topic and the database go. */
    @AfterAll
    void tearDown() {
        listeners.stop();
        topic.close();
        stack.close();
    }

    @Test
    void theConsumerRetriesWhileTheDatabaseIsDownThenCatchesUpWithoutDeadLetters() {
        var db = new StockDatabase(stack.jdbcUrl("stock"));
        String item = Events.item("outage");
        topic.send(reset(item, 10_000, 1));
        IntStream.range(0, BEFORE).forEach(i -> topic.send(deducted(item, 1, 1)));
        topic.flush();
        await().atMost(DEADLINE).until(() -> db.quantity(item) == 10_000 - BEFORE);

        stack.stop("mariadb");
        IntStream.range(0, DURING).forEach(i -> topic.send(deducted(item, 2, 1)));
        topic.flush();
        double retriesBefore = retries();
        await("the consumer meets the outage and retries").atMost(DEADLINE)
                .until(() -> retries() >= retriesBefore + RETRIES_DURING_OUTAGE);
        assertThat(topic.deadLetterCount()).isZero();
        assertThat(listeners.getListenerContainers()).allMatch(c -> c.isRunning());

        stack.start("mariadb");
        await().atMost(DEADLINE).untilAsserted(() -> assertThat(db.level(item))
                .containsEntry("quantity", 10_000L - BEFORE - 2L * DURING)
                .containsEntry("events_applied", (long) BEFORE + DURING));
        assertThat(db.count("processed_event")).isEqualTo(1 + BEFORE + DURING);
        assertThat(db.count("stock_anomaly")).isZero();
        assertThat(topic.deadLetterCount()).isZero();
    }

    private double retries() {
        return registry.get("flashstock.consumer.batch.retries").counter().count();
    }
}
