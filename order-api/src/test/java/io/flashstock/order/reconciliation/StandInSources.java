package io.flashstock.order.reconciliation;

import io.flashstock.order.queue.WaitingRoomFigures;
import io.flashstock.order.reconciliation.ReconciliationReport.KafkaPosition;
import io.flashstock.order.reconciliation.ReconciliationReport.PartitionPosition;
import org.apache.kafka.common.TopicPartition;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.client.MockRestServiceServer;
import org.springframework.web.client.RestClient;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
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
        return report(jdbc, redis, item, stockQuantity, eventsApplied, new StandInKafka());
    }

    /** The same, over a stand-in topic the test moves. */
    static ReconciliationReport report(JdbcClient jdbc, StringRedisTemplate redis, String item, long stockQuantity,
                                       long eventsApplied, StandInKafka kafka) {
        return report(OrdersReads.primaryOnly(jdbc), redis, item, stockQuantity, eventsApplied, kafka);
    }

    /** The same, reading the orders database where {@code reads} says. */
    static ReconciliationReport report(OrdersReads reads, StringRedisTemplate redis, String item, long stockQuantity,
                                       long eventsApplied, StandInKafka kafka) {
        var builder = RestClient.builder().baseUrl(STOCK_CONSUMER);
        MockRestServiceServer.bindTo(builder).build()
                .expect(requestTo(STOCK_CONSUMER + "/stock/items"))
                .andRespond(withSuccess("[{\"itemCode\":\"" + item + "\",\"generation\":1,\"baseline\":10,"
                        + "\"quantity\":" + stockQuantity + ",\"eventsApplied\":" + eventsApplied
                        + ",\"anomalies\":0}]", MediaType.APPLICATION_JSON));
        var reconciliation = new Reconciliation(reads, redis, kafka, new StockConsumerLedger(builder.build()),
                Clock.systemUTC(), new WaitingRoomFigures(redis), null);
        var report = reconciliation.report(Optional.of(item));
        assertThat(report.items()).hasSize(1);
        return report;
    }

    /**
     * A stock topic of {@value #PARTITIONS} partitions whose records the test produces and the consumer group
     * commits by hand; it starts with every record consumed.
     */
    static final class StandInKafka extends KafkaPositions {

        private final long[] ends = {7, 7, 7};
        private final long[] committed = {7, 7, 7};
        private Runnable afterRead = () -> { };

        StandInKafka() {
            super(null, new ReconciliationSettings(URI.create(STOCK_CONSUMER), "unused:9092", "stock-events",
                    "stock-consumer", Duration.ofSeconds(1), Duration.ofSeconds(1)));
        }

        /** Runs {@code hook} once Kafka has answered the report's first read, before the report goes on. */
        void afterRead(Runnable hook) {
            this.afterRead = hook;
        }

        /** {@code records} of the item acknowledged by the topic (what outbox-relay's publish does). */
        synchronized void produce(String item, int records) {
            ends[partitionOf(item, PARTITIONS)] += records;
        }

        /** The consumer group commits every record produced so far. */
        synchronized void consumeAll() {
            System.arraycopy(ends, 0, committed, 0, PARTITIONS);
        }

        @Override
        Consumed consumed() {
            Map<TopicPartition, Long> offsets;
            synchronized (this) {
                offsets = IntStream.range(0, PARTITIONS).boxed().collect(Collectors.toMap(
                        p -> new TopicPartition("stock-events", p), p -> committed[p]));
            }
            afterRead.run();
            return new Consumed(offsets);
        }

        @Override
        synchronized KafkaPosition against(Consumed consumed) {
            var partitions = IntStream.range(0, PARTITIONS).mapToObj(p -> {
                long done = consumed.offsets().get(new TopicPartition("stock-events", p));
                return new PartitionPosition(p, ends[p], done, ends[p] - done);
            }).toList();
            long end = partitions.stream().mapToLong(PartitionPosition::endOffset).sum();
            long done = partitions.stream().mapToLong(PartitionPosition::committedOffset).sum();
            return new KafkaPosition("stock-events", "stock-consumer", end, done, end - done, 0, partitions);
        }
    }
}
