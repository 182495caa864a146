package io.flashstock.order.reconciliation;

import io.flashstock.order.queue.WaitingRoomFigures;
import io.flashstock.order.reconciliation.ReconciliationReport.KafkaPosition;
import io.flashstock.order.reconciliation.ReconciliationReport.PartitionPosition;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.client.MockRestServiceServer;
import org.springframework.web.client.RestClient;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.client.match.MockRestRequestMatchers.requestTo;
import static org.springframework.test.web.client.response.MockRestResponseCreators.withSuccess;

/**
 * The report built over the real orders database and Redis, with Kafka (every record consumed) and
 * stock-consumer's answer stood in for, so no pipeline has to run.
 */
final class StandInSources {

    private static final String STOCK_CONSUMER = "http://stock-consumer.test";
    private static final int PARTITIONS = 3;

    private StandInSources() {
    }

    /** The report of one item, with stock-consumer reporting its generation 1 with {@code quantity} left. */
    static ReconciliationReport report(JdbcClient jdbc, StringRedisTemplate redis, String item, long stockQuantity,
                                       long eventsApplied) {
        return report(jdbc, redis, item, stockQuantity, eventsApplied, () -> { });
    }

    /** The same, with {@code whileReadingKafka} run as the report reads the topic's positions. */
    static ReconciliationReport report(JdbcClient jdbc, StringRedisTemplate redis, String item, long stockQuantity,
                                       long eventsApplied, Runnable whileReadingKafka) {
        var builder = RestClient.builder().baseUrl(STOCK_CONSUMER);
        MockRestServiceServer.bindTo(builder).build()
                .expect(requestTo(STOCK_CONSUMER + "/stock/items"))
                .andRespond(withSuccess("[{\"itemCode\":\"" + item + "\",\"generation\":1,\"baseline\":10,"
                        + "\"quantity\":" + stockQuantity + ",\"eventsApplied\":" + eventsApplied
                        + ",\"anomalies\":0}]", MediaType.APPLICATION_JSON));
        var reconciliation = new Reconciliation(jdbc, redis, new ConsumedKafka(whileReadingKafka), builder.build(), Clock.systemUTC(),
                new WaitingRoomFigures(redis), null);
        var report = reconciliation.report(Optional.of(item));
        assertThat(report.items()).hasSize(1);
        return report;
    }

    /** A stock topic whose every record the consumer group has committed. */
    private static final class ConsumedKafka extends KafkaPositions {

        private final Runnable whileReading;

        ConsumedKafka(Runnable whileReading) {
            super(null, new ReconciliationSettings(URI.create(STOCK_CONSUMER), "unused:9092", "stock-events",
                    "stock-consumer", Duration.ofSeconds(1)));
            this.whileReading = whileReading;
        }

        @Override
        KafkaPosition read() {
            whileReading.run();
            var partitions = IntStream.range(0, PARTITIONS)
                    .mapToObj(p -> new PartitionPosition(p, 7, 7, 0)).toList();
            return new KafkaPosition("stock-events", "stock-consumer", 21, 21, 0, 0, partitions);
        }
    }
}
