package io.flashstock.stock;

import io.flashstock.stock.support.Events;
import io.flashstock.stock.support.Http;
import io.flashstock.stock.support.StockDatabase;
import io.flashstock.stock.support.StockTopic;
import io.flashstock.testsupport.FaultProxy;
import io.flashstock.testsupport.TestInfrastructure;
import io.micrometer.core.instrument.MeterRegistry;
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

import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import java.util.stream.IntStream;

import static io.flashstock.stock.support.Events.deducted;
import static io.flashstock.stock.support.Events.reset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The database stops answering without closing the connection (a proxy between the service and MariaDB holds every
 * byte from the moment the batch's first statement is sent): the statement in flight is cut off at the driver's
 * socket timeout instead of blocking its listener thread for good, the batch is retried, and liveness reports the
 * batch that hangs.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HungDatabaseIT {

    /** The socket timeout of application.yml (20 s), a retry, and a slow machine's margin. */
    private static final Duration DEADLINE = Duration.ofSeconds(90);
    private static final String DATABASE = TestInfrastructure.get().createDatabase("stock_hung");
    private static final int DEDUCTIONS = 50;

    private static FaultProxy proxy;
    private static StockTopic topic;

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry registry;

    @Autowired
    KafkaListenerEndpointRegistry listeners;

    private final StockDatabase db = new StockDatabase(TestInfrastructure.get().jdbcUrl(DATABASE));

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        var infra = TestInfrastructure.get();
        URI direct = URI.create(infra.jdbcUrl(DATABASE).substring("jdbc:".length()));
        proxy = FaultProxy.to(direct.getHost(), direct.getPort());
        topic = StockTopic.create("stock-hung-it", 1);
        infra.registerRedisAndKafka(registry);
        infra.registerDataSource(registry, DATABASE);
        registry.add("spring.datasource.url", () -> "jdbc:mysql://127.0.0.1:" + proxy.port() + "/" + DATABASE
                + "?useSSL=false&allowPublicKeyRetrieval=true");
        registry.add("flashstock.consumer.topic", topic::name);
        registry.add("flashstock.consumer.retry.initial-interval", () -> "200ms");
        registry.add("flashstock.consumer.retry.max-interval", () -> "2s");
        registry.add("flashstock.consumer.stuck-after", () -> "3s");
        registry.add("spring.kafka.consumer.group-id", () -> "stock-hung-it-" + UUID.randomUUID());
    }

    /** Ends the hang first, so that the listener can stop. */
    @AfterAll
    void tearDown() {
        proxy.close();
        listeners.stop();
        topic.close();
    }

    @Test
    void aDatabaseThatStopsAnsweringFailsTheBatchAtTheSocketTimeoutAndLivenessShowsTheHungBatch() {
        String item = Events.item("hung");
        topic.send(reset(item, 1_000, 1));
        topic.flush();
        await().atMost(DEADLINE).until(() -> db.quantity(item) == 1_000);
        assertThat(liveness()).isEqualTo("UP");

        proxy.freezeAt("FROM processed_event WHERE event_id IN");
        double retriesBefore = retries();
        IntStream.range(0, DEDUCTIONS).forEach(i -> topic.send(deducted(item, 1, 1)));
        topic.flush();
        await("the batch's first statement is sent and hangs").atMost(DEADLINE).until(proxy::frozen);

        await("the statement that hangs is cut off and its batch retried").atMost(DEADLINE)
                .until(() -> retries() > retriesBefore);
        await("liveness reports the batch that hangs").atMost(DEADLINE).until(() -> "DOWN".equals(liveness()));

        proxy.thaw();
        await().atMost(DEADLINE).untilAsserted(() -> assertThat(db.level(item))
                .containsEntry("quantity", 1_000L - DEDUCTIONS)
                .containsEntry("events_applied", (long) DEDUCTIONS));
        await().atMost(DEADLINE).until(() -> "UP".equals(liveness()));
        assertThat(db.count("processed_event")).isEqualTo(1 + DEDUCTIONS);
        assertThat(topic.deadLetterCount()).isZero();
    }

    private String liveness() {
        return Http.get(port, "/actuator/health/liveness").body().get("status").asString();
    }

    private double retries() {
        return registry.get("flashstock.consumer.batch.retries").counter().count();
    }
}
