package io.flashstock.system;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The JIT warm-up in the real order-api jar: readiness is refused while it runs and liveness is not, its
 * orders took the real path (answered 200), and afterwards no trace of them is left in the orders, the
 * outbox or the stock database, and a real item's reconciliation is unchanged.
 */
class WarmupIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String WARMUP_ITEM = "warmup-jit";
    private static final int WARMUP_REQUESTS = 300;
    private static Pipeline pipeline;

    @BeforeAll
    static void startPipeline() {
        pipeline = new Pipeline(Map.of("FLASHSTOCK_WARMUP_ENABLED", "false"));
    }

    @AfterAll
    static void stopPipeline() {
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @Test
    void warmsUpThroughTheRealPathBeforeReadinessAndLeavesNoTrace() {
        String item = "warm-real-" + UUID.randomUUID().toString().substring(0, 8);
        pipeline.resetStock(item, 100);
        for (int i = 0; i < 7; i++) {
            assertThat(pipeline.order(item, 1)).isEqualTo(200);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            JsonNode stock = pipeline.stockItem(item);
            return stock != null && stock.get("eventsApplied").asLong() == 7;
        });

        var api = pipeline.restartOrderApi(Map.of("FLASHSTOCK_WARMUP_ENABLED", "true",
                "FLASHSTOCK_WARMUP_REQUESTS", Integer.toString(WARMUP_REQUESTS),
                "FLASHSTOCK_WARMUP_DEADLINE", "60s"));
        var probes = new ProbeWatch(pipeline, api.port());
        await("order-api ready").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20))
                .until(probes::ready);

        assertThat(probes.sawReadinessRefusedWhileLive).as("readiness refused during warm-up, liveness up").isTrue();
        assertThat(metric(api.port(), "flashstock.warmup.requests")).isEqualTo(WARMUP_REQUESTS);
        assertThat(pipeline.countInOrders("SELECT COUNT(*) FROM purchase_order WHERE item_code = ?", WARMUP_ITEM))
                .isZero();
        assertThat(pipeline.countInOrders("SELECT COUNT(*) FROM outbox_event WHERE aggregate_key = ?", WARMUP_ITEM))
                .isZero();
        assertThat(pipeline.countInStock("SELECT COUNT(*) FROM stock_level WHERE item_code = ?", WARMUP_ITEM))
                .isZero();

        JsonNode stock = pipeline.stockItem(item);
        assertThat(stock.get("quantity").asLong()).isEqualTo(93);
        assertThat(stock.get("eventsApplied").asLong()).isEqualTo(7);
        var report = pipeline.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port()
                        + "/admin/reconciliation?itemCode=" + item))
                .header("Authorization", "Bearer " + Pipeline.ADMIN_TOKEN).GET().build());
        assertThat(report.statusCode()).as(report.body()).isEqualTo(200);
        assertThat(JSON.readTree(report.body()).get("exact").asBoolean()).as("the real item's reconciliation: %s",
                report.body()).isTrue();
        assertThat(pipeline.order(item, 1)).as("the real item still sells after the warm-up").isEqualTo(200);
    }

    private static double metric(int port, String name) {
        var response = pipeline.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/actuator/metrics/" + name)).GET().build());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body()).at("/measurements/0/value").asDouble();
    }

    /** Polls liveness and readiness; remembers whether it saw the service live but not ready. */
    private static final class ProbeWatch {
        private final Pipeline pipeline;
        private final int port;
        boolean sawReadinessRefusedWhileLive;

        ProbeWatch(Pipeline pipeline, int port) {
            this.pipeline = pipeline;
            this.port = port;
        }

        boolean ready() {
            int readiness = status("/actuator/health/readiness");
            if (readiness == 503 && status("/actuator/health/liveness") == 200) {
                sawReadinessRefusedWhileLive = true;
            }
            return readiness == 200;
        }

        private int status(String path) {
            try {
                return pipeline.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(1)).GET().build()).statusCode();
            } catch (IllegalStateException notListeningYet) {
                return -1;
            }
        }
    }
}
