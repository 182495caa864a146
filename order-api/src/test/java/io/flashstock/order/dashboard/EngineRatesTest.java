package io.flashstock.order.dashboard;

import io.flashstock.order.dashboard.ProcessScrapes.Scrape;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Rates and percentiles from two scrapes of Prometheus text, as the page shows them. */
class EngineRatesTest {

    private static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");

    @Test
    void ratesAreTheCountersDifferenceOverTheTimeBetweenTheScrapes() {
        var before = sample(T0, """
                # TYPE flashstock_orders_total counter
                flashstock_orders_total{gate="redis",outcome="accepted"} 100.0
                flashstock_orders_total{gate="redis",outcome="limit_reached"} 1.0
                flashstock_orders_total{gate="db-lock",outcome="wrong_gate"} 0.0
                flashstock_orders_total{gate="redis",outcome="stock_reloading"} 0.0
                flashstock_orders_total{gate="token",outcome="rejected"} 0.0
                flashstock_orders_total{gate="redis",outcome="rejected"} 0.0
                """, "flashstock_relay_published_rows_total 10\nflashstock_relay_batch_size_rows_count 2\n"
                        + "flashstock_relay_batch_size_rows_sum 10\n");
        var after = sample(T0.plusSeconds(2), """
                flashstock_orders_total{gate="redis",outcome="accepted"} 300.0
                flashstock_orders_total{gate="redis",outcome="limit_reached"} 3.0
                flashstock_orders_total{gate="db-lock",outcome="wrong_gate"} 2.0
                flashstock_orders_total{gate="redis",outcome="stock_reloading"} 4.0
                flashstock_orders_total{gate="token",outcome="rejected"} 6.0
                flashstock_orders_total{gate="redis",outcome="rejected"} 2.0
                """, "flashstock_relay_published_rows_total 210\nflashstock_relay_batch_size_rows_count 6\n"
                        + "flashstock_relay_batch_size_rows_sum 210\n");

        EngineView view = EngineRates.between(before, before, after);

        assertThat(view.orders().get("accepted")).isEqualTo(new EngineView.Rate(300.0, 100.0));
        assertThat(view.orders().get("refused")).as("limit reached, wrong gate")
                .isEqualTo(new EngineView.Rate(5.0, 2.0));
        assertThat(view.orders().get("invalid")).isEqualTo(new EngineView.Rate(2.0, 1.0));
        assertThat(view.orders().get("stock_reloading")).as("a designed refusal: its own series, not failed")
                .isEqualTo(new EngineView.Rate(4.0, 2.0));
        assertThat(view.orders().get("token_refused")).isEqualTo(new EngineView.Rate(6.0, 3.0));
        assertThat(view.orders().get("failed").total()).as("no such series: unknown, not zero").isNull();
        assertThat(view.relay().perSecond()).isEqualTo(100.0);
        assertThat(view.relay().batchSize()).as("200 rows in 4 claims").isEqualTo(50.0);
        assertThat(view.consumer().perSecond()).isNull();
    }

    @Test
    void everyOrderOrderApiCountsIsInExactlyOneSeries() {
        var meters = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        new io.flashstock.order.placement.core.OrderMetrics(meters);
        var counters = meters.find("flashstock.orders").counters();

        assertThat(counters).isNotEmpty();
        for (var counter : counters) {
            Map<String, String> labels = Map.of("gate", counter.getId().getTag("gate"),
                    "outcome", counter.getId().getTag("outcome"));
            assertThat(DashboardCharts.ORDERS.stream().filter(series -> series.counts(labels)).count())
                    .as("series counting %s", labels).isEqualTo(1);
        }
    }

    @Test
    void theCpuOfProcessesReadByPidFileOrAgentIsTheirCpuSecondsOverTheInterval() {
        var before = sample(T0, "", "", Map.of("mariadb", new ProcessCpu.Reading(10.0, null)));
        var after = sample(T0.plusSeconds(2), "", "", Map.of("mariadb", new ProcessCpu.Reading(11.0, null)));

        var mariadb = EngineRates.between(before, before, after).processes().stream()
                .filter(p -> p.name().equals("mariadb")).findFirst().orElseThrow();

        assertThat(mariadb.cpuCores()).isEqualTo(0.5);
    }

    @Test
    void percentilesAreOfWhatWasObservedBetweenTheScrapesAcrossGates() {
        var before = sample(T0, buckets(Map.of(0.001, 0, 0.01, 0, 0.1, 0), 0), "");
        // 100 new observations: 50 under 1 ms, 40 between 1 and 10 ms, 10 between 10 and 100 ms
        var after = sample(T0.plusSeconds(1), buckets(Map.of(0.001, 50, 0.01, 90, 0.1, 100), 100), "");

        var latency = EngineRates.between(before, before, after).latency();

        assertThat(latency.p50()).isCloseTo(1.0, within(1e-9));
        assertThat(latency.p95()).as("halfway through the 10-100 ms bucket").isCloseTo(55.0, within(1e-9));
        assertThat(latency.p99()).isCloseTo(91.0, within(1e-9));
        assertThat(EngineRates.between(after, after, after).latency()).as("nothing observed").isNull();
    }

    @Test
    void aRedisClustersNodesAreShownEachAndSummedMatchedByAddressAcrossAFailover() {
        var before = new EngineSample(T0, Map.of(), new RedisStats.Reading(3000L, 12.0, null, List.of(
                new RedisStats.NodeReading("127.0.0.1:7000", "primary", 1000L, 10.0, null),
                new RedisStats.NodeReading("127.0.0.1:7001", "replica", 2000L, 2.0, null))), Map.of(), null);
        // the replica was promoted meanwhile
        var after = new EngineSample(T0.plusSeconds(2), Map.of(), new RedisStats.Reading(3500L, 13.0, null, List.of(
                new RedisStats.NodeReading("127.0.0.1:7000", "replica", 1500L, 10.5, null),
                new RedisStats.NodeReading("127.0.0.1:7001", "primary", 2000L, 2.5, null))), Map.of(), null);

        var view = EngineRates.between(before, before, after);
        var processes = view.processes();

        assertThat(processes).containsExactly(
                new EngineView.ProcessView("redis (2 nodes)", 0.5, 3500.0, null),
                new EngineView.ProcessView("redis 127.0.0.1:7000 replica", 0.25, 1500.0, null),
                new EngineView.ProcessView("redis 127.0.0.1:7001 primary", 0.25, 2000.0, null));
        assertThat(DashboardCharts.values(view)[DashboardCharts.SERIES.stream().map(DashboardCharts.Series::key)
                .toList().indexOf("cpu.redis")]).as("the CPU chart's redis line: the nodes' sum").isEqualTo(0.5f);
    }

    private static String buckets(Map<Double, Integer> counts, int total) {
        var text = new StringBuilder();
        new java.util.TreeMap<>(counts).forEach((le, count) -> text.append(
                "flashstock_order_latency_seconds_bucket{gate=\"redis\",le=\"").append(le).append("\"} ")
                .append(count).append('\n'));
        return text.append("flashstock_order_latency_seconds_bucket{gate=\"redis\",le=\"+Inf\"} ").append(total)
                .append('\n').toString();
    }

    private static EngineSample sample(Instant at, String orderApi, String relay) {
        return sample(at, orderApi, relay, Map.of());
    }

    private static EngineSample sample(Instant at, String orderApi, String relay, Map<String, ProcessCpu.Reading> cpu) {
        Map<String, Scrape> scrapes = new LinkedHashMap<>();
        scrapes.put(ProcessScrapes.ORDER_API, new Scrape(Samples.parse(orderApi), null));
        scrapes.put(ProcessScrapes.OUTBOX_RELAY, new Scrape(Samples.parse(relay), null));
        scrapes.put(ProcessScrapes.STOCK_CONSUMER, Scrape.failed("down"));
        return new EngineSample(at, scrapes, new RedisStats.Reading(1024L, 1.0, null, List.of()), cpu, null);
    }
}
