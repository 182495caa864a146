package io.flashstock.system;

import io.flashstock.testsupport.TestInfrastructure;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The reconciliation report through its command, {@code scripts/reconcile}, against the three services:
 * a clean run holds every invariant, and each divergence made on purpose is reported as the right failed
 * invariant with the right amount and a non-zero exit code.
 */
class ReconciliationIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration DEADLINE = Duration.ofSeconds(90);

    private static Pipeline pipeline;
    private static RedisClient redisClient;
    private static StatefulRedisConnection<String, String> redis;

    @BeforeAll
    static void startPipeline() {
        pipeline = new Pipeline(Map.of("FLASHSTOCK_WARMUP_ENABLED", "false"));
        var infra = TestInfrastructure.get();
        redisClient = RedisClient.create(RedisURI.create(infra.redisHost(), infra.redisPort()));
        redis = redisClient.connect();
    }

    @AfterAll
    static void stopPipeline() {
        if (redis != null) {
            redis.close();
            redisClient.shutdown();
        }
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @Test
    void cleanRunHoldsEveryInvariant() throws Exception {
        String item = newItem("clean", 1_000);
        List<Integer> quantities = placeConcurrently(item, 60);

        Report report = reconcile(item, "--wait", "60");

        assertThat(report.exitCode).as(report.output).isZero();
        JsonNode row = report.item(item);
        assertThat(report.json.get("exact").asBoolean()).isTrue();
        assertThat(report.json.get("drained").asBoolean()).isTrue();
        assertThat(row.at("/orders/count").asLong()).isEqualTo(quantities.size());
        assertThat(row.at("/orders/quantity").asLong()).isEqualTo(quantities.stream().mapToInt(i -> i).sum());
        assertThat(row.at("/stock/quantity").asLong()).isEqualTo(1_000 - quantities.stream().mapToInt(i -> i).sum());
        assertThat(Files.readString(report.dir.resolve("reconciliation.md"))).contains("EXACT").contains(item);
    }

    @Test
    void redisDecrementedWithoutAnOrderIsDriftAndRepairFixesIt() throws Exception {
        String item = newItem("drift", 500);
        placeConcurrently(item, 10);
        awaitApplied(item, 10);
        redis.sync().decrby("stock:{" + item + "}", 3);

        Report drifted = reconcile(item, "--wait", "30");

        assertThat(drifted.exitCode).isNotZero();
        assertThat(drifted.failed(item)).containsOnlyKeys("redis-matches-orders");
        assertThat(drifted.failed(item).get("redis-matches-orders").get("difference").asLong()).isEqualTo(-3);

        Report repaired = reconcile(item, "--wait", "30", "--repair-redis");

        assertThat(repaired.exitCode).as(repaired.output).isZero();
        assertThat(repaired.output).contains("repaired " + item);
    }

    @Test
    void unsentOutboxRowAndUndrainedLagAreReportedWithTheirAmounts() throws Exception {
        String item = newItem("undrained", 500);
        placeConcurrently(item, 5);
        awaitApplied(item, 5);

        pipeline.relay.close();
        assertThat(pipeline.order(item, 2)).isEqualTo(200);
        Report unsent = reconcile(item, "--wait", "1");

        assertThat(unsent.exitCode).isNotZero();
        assertThat(unsent.failed(item)).containsOnlyKeys("pipeline-drained", "stock-db-matches-orders",
                "events-applied-match-orders");
        assertThat(unsent.failed(item).get("pipeline-drained").get("actual").asLong()).isEqualTo(1);
        assertThat(unsent.failed(item).get("stock-db-matches-orders").get("difference").asLong()).isEqualTo(2);
        assertThat(unsent.failed(item).get("events-applied-match-orders").get("difference").asLong()).isEqualTo(-1);

        pipeline.consumer.close();
        pipeline.relay.start().awaitReady(DEADLINE);
        await("the relay publishes the row").atMost(DEADLINE).until(() ->
                pipeline.countInOrders("SELECT COUNT(*) FROM outbox_event WHERE status = 'NEW'") == 0);
        Report lagging = reconcile(item, "--wait", "1");

        assertThat(lagging.exitCode).isNotZero();
        JsonNode drained = lagging.failed(item).get("pipeline-drained");
        assertThat(drained.get("actual").asLong()).as("records not consumed on the item's partition").isEqualTo(1);
        assertThat(lagging.item(item).get("partitionLag").asLong()).isEqualTo(1);
        assertThat(lagging.json.at("/kafka/lag").asLong()).isEqualTo(1);

        pipeline.consumer.start().awaitReady(DEADLINE);
        Report healed = reconcile(item, "--wait", "60");
        assertThat(healed.exitCode).as(healed.output).isZero();
    }

    /** outbox-relay's own retention, with a retention of 1 ms, deletes every SENT row: the report stays exact. */
    @Test
    void theReportStaysExactAfterTheRelayDeletedTheSentRows() throws Exception {
        String item = newItem("retired", 500);
        placeConcurrently(item, 10);
        awaitApplied(item, 10);

        pipeline.restartRelay(Map.of("FLASHSTOCK_RELAY_RETENTION", "1ms",
                "FLASHSTOCK_RELAY_RETENTION_INTERVAL", "200ms")).awaitReady(DEADLINE);
        try {
            await("the relay's retention deletes the item's rows").atMost(DEADLINE).until(() ->
                    pipeline.countInOrders("SELECT COUNT(*) FROM outbox_event WHERE aggregate_key = ?", item) == 0);

            Report report = reconcile(item, "--wait", "30");

            assertThat(report.exitCode).as(report.output).isZero();
            assertThat(report.item(item).at("/orders/count").asLong()).isEqualTo(10);
            assertThat(report.item(item).at("/outbox/count").asLong()).isZero();
        } finally {
            pipeline.restartRelay(Map.of()).awaitReady(DEADLINE);
        }
    }

    @Test
    void stockDatabaseChangedByHandIsReported() throws Exception {
        String item = newItem("tampered", 500);
        placeConcurrently(item, 8);
        awaitApplied(item, 8);
        pipeline.updateStockDatabase("UPDATE stock_level SET quantity = quantity - 5 WHERE item_code = ?", item);

        Report tampered = reconcile(item, "--wait", "30");

        assertThat(tampered.exitCode).isNotZero();
        assertThat(tampered.failed(item)).containsOnlyKeys("stock-db-matches-orders");
        assertThat(tampered.failed(item).get("stock-db-matches-orders").get("difference").asLong()).isEqualTo(-5);

        pipeline.updateStockDatabase("UPDATE stock_level SET quantity = quantity + 5 WHERE item_code = ?", item);
        assertThat(reconcile(item, "--wait", "30").exitCode).isZero();
    }

    private static String newItem(String prefix, long stock) {
        String item = "rec-" + prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        pipeline.resetStock(item, stock);
        await("the reset in the stock database").atMost(DEADLINE).until(() -> pipeline.stockItem(item) != null);
        return item;
    }

    /** Places orders of quantity 1–3 from a few threads; returns the quantities of those answered 200. */
    private static List<Integer> placeConcurrently(String item, int orders) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < orders; i++) {
                int quantity = 1 + i % 3;
                answers.add(pool.submit(() -> pipeline.order(item, quantity) == 200 ? quantity : 0));
            }
            List<Integer> accepted = new ArrayList<>();
            for (Future<Integer> f : answers) {
                accepted.add(f.get(30, TimeUnit.SECONDS));
            }
            assertThat(accepted).doesNotContain(0);
            return accepted;
        } finally {
            pool.shutdownNow();
        }
    }

    private static void awaitApplied(String item, long orders) {
        await("orders applied in the stock database").atMost(DEADLINE).until(() -> {
            JsonNode stock = pipeline.stockItem(item);
            return stock != null && stock.get("eventsApplied").asLong() == orders;
        });
    }

    private record Report(int exitCode, String output, JsonNode json, Path dir) {

        JsonNode item(String itemCode) {
            for (JsonNode item : json.get("items")) {
                if (item.get("itemCode").asString().equals(itemCode)) {
                    return item;
                }
            }
            throw new AssertionError("no item " + itemCode + " in " + json);
        }

        Map<String, JsonNode> failed(String itemCode) {
            var failed = new java.util.TreeMap<String, JsonNode>();
            for (JsonNode invariant : item(itemCode).get("invariants")) {
                if (!invariant.get("holds").asBoolean()) {
                    failed.put(invariant.get("name").asString(), invariant);
                }
            }
            return failed;
        }
    }

    private static Report reconcile(String item, String... options) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("reconcile-");
        List<String> command = new ArrayList<>(List.of(
                TestInfrastructure.repositoryRoot().resolve("scripts/reconcile").toString(), item, "--out", dir.toString()));
        command.addAll(List.of(options));
        var builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("ORDER_API_URL", pipeline.orderApiUrl());
        builder.environment().put("STOCK_ADMIN_TOKEN", Pipeline.ADMIN_TOKEN);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).isTrue();
        return new Report(process.exitValue(), output, JSON.readTree(dir.resolve("reconciliation.json").toFile()), dir);
    }
}
