package io.flashstock.stock;

import io.flashstock.contract.StockDeducted;
import io.flashstock.stock.support.Events;
import io.flashstock.stock.support.Http;
import io.flashstock.stock.support.StockDatabase;
import io.flashstock.stock.support.StockTopic;
import io.flashstock.testsupport.FreePort;
import io.flashstock.testsupport.ServiceProcess;
import io.flashstock.testsupport.TestInfrastructure;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.flashstock.stock.support.Events.deducted;
import static io.flashstock.stock.support.Events.reset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The built jar as separate processes: killed with SIGKILL mid-stream, and two instances sharing one group. */
class ConsumerProcessesIT {

    private static final int PARTITIONS = 3;
    private static final long BASELINE = 1_000_000;
    private static final Duration START = Duration.ofSeconds(90);
    private static final Duration DRAIN = Duration.ofSeconds(90);
    /** From the restarted process being ready to its partitions' new events applied. */
    private static final Duration RECLAIM = Duration.ofSeconds(10);
    /** From the kill to the survivor applying the killed one's partitions: the 10 s session and a rebalance. */
    private static final Duration TAKE_OVER = Duration.ofSeconds(25);

    private final TestInfrastructure infra = TestInfrastructure.get();

    @Test
    void aConsumerKilledMidBatchThenRestartedEndsExactlyAtBaselineMinusTheDeductions() {
        int events = 30_000;
        String database = infra.createDatabase("stock_kill");
        var db = new StockDatabase(infra.jdbcUrl(database));
        try (var topic = StockTopic.create("stock-kill-it", PARTITIONS)) {
            var expected = new Expected(itemsOnEveryPartition("kill", 2));
            expected.resetAll(topic);
            for (int i = 0; i < events; i++) {
                expected.deduct(topic);
            }
            topic.flush();

            // The restarted consumer takes the killed one's partitions back at once (static membership), but the
            // item locks of the batch it was killed in stay taken until their lease ends: a shorter lease than the
            // default (30 s) keeps the test brief.
            try (var consumer = service(database, topic, "stock-kill-" + UUID.randomUUID(), 3,
                    "--flashstock.lock.lease-time=5s")) {
                consumer.start().awaitReady(START);
                await().atMost(DRAIN).pollInterval(Duration.ofMillis(10))
                        .until(() -> db.eventsApplied() >= events / 10);
                consumer.kill();
                assertThat(db.eventsApplied()).as("applied when killed").isLessThan(events);

                consumer.start().awaitReady(START);
                await().atMost(DRAIN).until(() -> db.count("processed_event") == expected.eventCount());
                expected.assertApplied(db);
                assertThat(db.count("stock_anomaly")).isZero();
                assertThat(topic.deadLetterCount()).isZero();
            }
        }
    }

    /**
     * A consumer killed with SIGKILL and started again takes its partitions back at once (static membership),
     * instead of waiting until the broker drops the killed process's members and the group rebalances. The session
     * is Kafka's default (45 s) here, so that the restart, which takes longer than the service's 10 s session on a
     * busy machine, cannot pass by the killed members' expiry. It is killed once idle, every event committed, so that no
     * item lock of a batch it was applying is left to expire: what is measured is the group alone.
     */
    @Test
    void aConsumerKilledAndStartedAgainHasItsPartitionsBackAtOnce() {
        String database = infra.createDatabase("stock_reclaim");
        var db = new StockDatabase(infra.jdbcUrl(database));
        String group = "stock-reclaim-" + UUID.randomUUID();
        try (var topic = StockTopic.create("stock-reclaim-it", PARTITIONS);
             var consumer = service(database, topic, group, 3,
                     "--spring.kafka.consumer.properties.session.timeout.ms=45000")) {
            var expected = new Expected(itemsOnEveryPartition("reclaim", 1));
            expected.resetAll(topic);
            topic.flush();
            consumer.start().awaitReady(START);
            await().atMost(DRAIN).until(() -> db.count("processed_event") == expected.eventCount());
            awaitQuiet(topic, group);
            consumer.kill();

            consumer.start().awaitReady(START);
            var after = new Expected(itemsOnEveryPartition("reclaimed", 1));
            after.resetAll(topic);
            after.deductEach(topic);
            topic.flush();
            await("two events per partition applied after the restart").atMost(RECLAIM)
                    .until(() -> db.count("processed_event") == expected.eventCount() + after.eventCount());
            expected.assertApplied(db);
            after.assertApplied(db);
        }
    }

    /**
     * With the session the service ships with (10 s): an instance killed and not started again loses its partitions
     * to the other instance of the group within the session and a rebalance, not Kafka's default 45 s.
     */
    @Test
    void theOtherInstanceTakesOverAKilledInstancesPartitionsWithinTheSession() {
        String database = infra.createDatabase("stock_takeover");
        var db = new StockDatabase(infra.jdbcUrl(database));
        String group = "stock-takeover-" + UUID.randomUUID();
        try (var topic = StockTopic.create("stock-takeover-it", PARTITIONS);
             var killed = service(database, topic, group, 1);
             var survivor = service(database, topic, group, 1)) {
            var expected = new Expected(itemsOnEveryPartition("takeover", 1));
            expected.resetAll(topic);
            topic.flush();
            killed.start();
            survivor.start();
            killed.awaitReady(START);
            survivor.awaitReady(START);
            await("both instances assigned partitions").atMost(DRAIN).until(() -> membersWithPartitions(group) == 2);
            await().atMost(DRAIN).until(() -> db.count("processed_event") == expected.eventCount());
            awaitQuiet(topic, group);

            killed.kill();
            var after = new Expected(itemsOnEveryPartition("taken-over", 1));
            after.resetAll(topic);
            after.deductEach(topic);
            topic.flush();
            await("two events per partition applied by the survivor").atMost(TAKE_OVER)
                    .until(() -> db.count("processed_event") == expected.eventCount() + after.eventCount());
            expected.assertApplied(db);
            after.assertApplied(db);
        }
    }

    @Test
    void twoInstancesInOneGroupApplyAStreamExactlyOnce() throws Exception {
        String database = infra.createDatabase("stock_pair");
        var db = new StockDatabase(infra.jdbcUrl(database));
        String group = "stock-pair-" + UUID.randomUUID();
        var stream = Executors.newSingleThreadScheduledExecutor();
        try (var topic = StockTopic.create("stock-pair-it", PARTITIONS);
             // one consumer thread each: two members for three partitions, so both get some
             var first = service(database, topic, group, 1);
             var second = service(database, topic, group, 1)) {
            var expected = new Expected(itemsOnEveryPartition("pair", 2));
            expected.resetAll(topic);
            topic.flush();
            first.start().awaitReady(START);

            // about 1,000 events/s while the second instance joins the group and takes partitions over
            stream.scheduleAtFixedRate(() -> {
                for (int i = 0; i < 10; i++) {
                    expected.deduct(topic);
                }
                topic.flush();
            }, 0, 10, TimeUnit.MILLISECONDS);
            second.start().awaitReady(START);
            long sentWhenBothReady = expected.eventCount();
            await().atMost(DRAIN).until(() -> applied(second) > 0
                    && expected.eventCount() >= sentWhenBothReady + 1_000);
            stream.shutdown();
            assertThat(stream.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

            await().atMost(DRAIN).until(() -> db.count("processed_event") == expected.eventCount());
            expected.assertApplied(db);
            assertThat(db.count("stock_anomaly")).isZero();
            assertThat(applied(first)).isPositive();
            assertThat(applied(first) + applied(second))
                    .as("deductions applied by both, each once").isEqualTo(expected.deductionCount());
        } finally {
            stream.shutdownNow();
        }
    }

    private ServiceProcess service(String database, StockTopic topic, String group, int concurrency,
                                   String... extraArgs) {
        List<String> args = new ArrayList<>(List.of(
                "--spring.datasource.url=" + infra.jdbcUrl(database),
                "--spring.datasource.username=" + infra.dbUser(),
                "--spring.datasource.password=" + infra.dbPassword(),
                "--spring.kafka.bootstrap-servers=" + infra.kafkaBootstrapServers(),
                "--spring.data.redis.host=" + infra.redisHost(),
                "--spring.data.redis.port=" + infra.redisPort(),
                "--flashstock.consumer.topic=" + topic.name(),
                "--spring.kafka.consumer.group-id=" + group,
                "--spring.kafka.listener.concurrency=" + concurrency));
        args.addAll(List.of(extraArgs));
        return ServiceProcess.of("stock-consumer", FreePort.find(), args, Map.of());
    }

    /**
     * Until the group committed every event. A batch's rows are visible before its item locks are released and its
     * offsets committed: a kill in between would leave the locks held for their lease (30 s) and the batch to be
     * delivered again, queued behind them, which is a wait the group's reclaim or take-over did not cause.
     */
    private static void awaitQuiet(StockTopic topic, String group) {
        await("every event committed by " + group).atMost(DRAIN).until(() -> topic.committedToEnd(group));
    }

    private int membersWithPartitions(String group) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                infra.kafkaBootstrapServers()))) {
            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group)).all()
                    .get(10, TimeUnit.SECONDS).get(group);
            return (int) description.members().stream()
                    .filter(member -> !member.assignment().topicPartitions().isEmpty()).count();
        }
    }

    /** Deductions this instance applied, from its own metrics. */
    private static long applied(ServiceProcess service) {
        Http.Answer answer = Http.get(service.port(),
                "/actuator/metrics/flashstock.consumer.events.applied?tag=type:StockDeducted");
        return answer.status() == 200 ? answer.body().get("measurements").get(0).get("value").asLong() : 0;
    }

    /** Item codes such that every partition of the topic holds {@code perPartition} of them. */
    private static List<String> itemsOnEveryPartition(String prefix, int perPartition) {
        Map<Integer, List<String>> byPartition = new ConcurrentHashMap<>();
        while (byPartition.size() < PARTITIONS
                || byPartition.values().stream().anyMatch(items -> items.size() < perPartition)) {
            String item = Events.item(prefix);
            int partition = Utils.toPositive(Utils.murmur2(item.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
            List<String> items = byPartition.computeIfAbsent(partition, p -> new ArrayList<>());
            if (items.size() < perPartition) {
                items.add(item);
            }
        }
        return byPartition.values().stream().flatMap(List::stream).toList();
    }

    /** What was sent, to compare the stock database with. */
    private static final class Expected {
        private final List<String> items;
        private final Map<String, AtomicLong> deducted = new ConcurrentHashMap<>();
        private final Map<String, AtomicLong> deductions = new ConcurrentHashMap<>();
        private final AtomicLong events = new AtomicLong();

        Expected(List<String> items) {
            this.items = items;
            items.forEach(item -> {
                deducted.put(item, new AtomicLong());
                deductions.put(item, new AtomicLong());
            });
        }

        void resetAll(StockTopic topic) {
            items.forEach(item -> topic.send(reset(item, BASELINE, 1)));
            events.addAndGet(items.size());
        }

        void deduct(StockTopic topic) {
            String item = items.get(ThreadLocalRandom.current().nextInt(items.size()));
            StockDeducted event = deducted(item, 1 + ThreadLocalRandom.current().nextInt(3), 1);
            topic.send(event);
            deducted.get(item).addAndGet(event.quantity());
            deductions.get(item).incrementAndGet();
            events.incrementAndGet();
        }

        /** One deduction of every item: with one item per partition, an event on each partition. */
        void deductEach(StockTopic topic) {
            for (String item : items) {
                StockDeducted event = deducted(item, 1, 1);
                topic.send(event);
                deducted.get(item).addAndGet(event.quantity());
                deductions.get(item).incrementAndGet();
                events.incrementAndGet();
            }
        }

        long eventCount() {
            return events.get();
        }

        long deductionCount() {
            return deductions.values().stream().mapToLong(AtomicLong::get).sum();
        }

        void assertApplied(StockDatabase db) {
            for (String item : items) {
                assertThat(db.level(item)).as(item)
                        .containsEntry("quantity", BASELINE - deducted.get(item).get())
                        .containsEntry("events_applied", deductions.get(item).get());
            }
        }
    }
}
