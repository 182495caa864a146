package io.flashstock.stock.retention;

import io.flashstock.stock.StockConsumerApplication;
import io.flashstock.stock.support.StockTopic;
import io.flashstock.testsupport.TestInfrastructure;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The service against topics of the real broker with their own retention: it must refuse to start when Kafka can
 * redeliver a record after its {@code processed_event} row is deleted, and start when it cannot.
 */
class DedupeWindowIT {

    private final TestInfrastructure infra = TestInfrastructure.get();

    @Test
    void aTopicThatKeepsRecordsLongerThanTheDedupeWindowStopsTheStart() {
        try (var topic = StockTopic.create("dedupe-long", 1,
                Map.of("retention.ms", Long.toString(Duration.ofDays(30).toMillis())))) {
            assertThatThrownBy(() -> start(topic, "7d").close())
                    .rootCause()
                    .hasMessageContaining(topic.name())
                    .hasMessageContaining("flashstock.retention.processed-events");
        }
    }

    @Test
    void aTopicWhoseRecordsAreDeletedWithinTheDedupeWindowStarts() {
        try (var topic = StockTopic.create("dedupe-short", 1, Map.of(
                "retention.ms", Long.toString(Duration.ofDays(1).toMillis()),
                "segment.ms", Long.toString(Duration.ofHours(1).toMillis())));
             var context = start(topic, "7d")) {
            assertThat(context.isActive()).isTrue();
        }
    }

    /** Arguments, not default properties: they must win over application.yml's defaults (the shared topic and database). */
    private ConfigurableApplicationContext start(StockTopic topic, String dedupeWindow) {
        String database = infra.createDatabase("dedupe_window");
        return new SpringApplicationBuilder(StockConsumerApplication.class)
                .web(WebApplicationType.NONE)
                .run("--spring.datasource.url=" + infra.jdbcUrl(database),
                        "--spring.datasource.username=" + infra.dbUser(),
                        "--spring.datasource.password=" + infra.dbPassword(),
                        "--spring.data.redis.host=" + infra.redisHost(),
                        "--spring.data.redis.port=" + infra.redisPort(),
                        "--spring.kafka.bootstrap-servers=" + infra.kafkaBootstrapServers(),
                        "--spring.kafka.consumer.group-id=dedupe-window-" + UUID.randomUUID(),
                        "--spring.kafka.listener.auto-startup=false",
                        "--flashstock.consumer.topic=" + topic.name(),
                        "--flashstock.retention.processed-events=" + dedupeWindow);
    }
}
