package io.flashstock.order.dashboard;

import io.flashstock.order.dashboard.EngineView.ProcessView;
import io.flashstock.order.dashboard.EngineView.Rate;
import io.flashstock.order.dashboard.EngineView.Stage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import static io.flashstock.order.dashboard.ProcessScrapes.ORDER_API;
import static io.flashstock.order.dashboard.ProcessScrapes.OUTBOX_RELAY;
import static io.flashstock.order.dashboard.ProcessScrapes.STOCK_CONSUMER;

/** Turns two engine samples into the page's rates, percentiles and process figures (the Prometheus names). */
final class EngineRates {

    static final String ORDERS = "flashstock_orders_total";
    static final String ORDER_LATENCY = "flashstock_order_latency_seconds";
    static final String END_TO_END = "flashstock_consumer_event_latency_seconds";
    static final String RELAY_PUBLISHED = "flashstock_relay_published_rows_total";
    static final String RELAY_BATCH = "flashstock_relay_batch_size_rows";
    static final String CONSUMER_APPLIED = "flashstock_consumer_events_applied_total";
    static final String CONSUMER_BATCH = "flashstock_consumer_batch_size_events";
    static final String CPU_USAGE = "process_cpu_usage";
    static final String CPU_COUNT = "system_cpu_count";
    static final String MEMORY_USED = "jvm_memory_used_bytes";
    static final String OUTBOX_BACKLOG = "flashstock_relay_backlog_rows";

    /** The metric families the names above belong to: what the dashboard asks each process for. */
    static final Set<String> FAMILIES = Set.of("flashstock_orders", ORDER_LATENCY, END_TO_END,
            "flashstock_relay_published_rows", RELAY_BATCH, "flashstock_consumer_events_applied", CONSUMER_BATCH,
            CPU_USAGE, CPU_COUNT, MEMORY_USED, OUTBOX_BACKLOG);

    private EngineRates() {
    }

    /**
     * Rates over the last interval ({@code before} to {@code after}); percentiles over the longer window from
     * {@code windowStart}, since one second of a quiet engine often holds no observation at all.
     */
    static EngineView between(EngineSample windowStart, EngineSample before, EngineSample after) {
        double seconds = Math.max(0.001, Duration.between(before.at(), after.at()).toNanos() / 1e9);
        Samples api0 = before.of(ORDER_API);
        Samples api1 = after.of(ORDER_API);
        Map<String, Rate> orders = new LinkedHashMap<>();
        for (DashboardCharts.OrderSeries series : DashboardCharts.ORDERS) {
            Double total = api1.sum(ORDERS, series::counts);
            Double earlier = api0.sum(ORDERS, series::counts);
            orders.put(series.key(), new Rate(total, perSecond(earlier, total, seconds)));
        }
        Samples consumer0 = before.of(STOCK_CONSUMER);
        Samples consumer1 = after.of(STOCK_CONSUMER);
        double window = Math.max(0.001, Duration.between(windowStart.at(), after.at()).toNanos() / 1e9);
        return new EngineView(seconds, window, orders,
                Quantiles.between(windowStart.of(ORDER_API).buckets(ORDER_LATENCY), api1.buckets(ORDER_LATENCY)),
                Quantiles.between(windowStart.of(STOCK_CONSUMER).buckets(END_TO_END), consumer1.buckets(END_TO_END)),
                stage(before.of(OUTBOX_RELAY), after.of(OUTBOX_RELAY), RELAY_PUBLISHED, RELAY_BATCH, seconds),
                stage(consumer0, consumer1, CONSUMER_APPLIED, CONSUMER_BATCH, seconds),
                processes(after, before, seconds), after.of(OUTBOX_RELAY).sum(OUTBOX_BACKLOG), after.consumerLag());
    }

    private static Stage stage(Samples s0, Samples s1, String counter, String batches, double seconds) {
        Double batchCount0 = s0.sum(batches + "_count");
        Double batchCount1 = s1.sum(batches + "_count");
        Double batchSum0 = s0.sum(batches + "_sum");
        Double batchSum1 = s1.sum(batches + "_sum");
        Double count = delta(batchCount0, batchCount1);
        Double sum = delta(batchSum0, batchSum1);
        Double meanBatch = count == null || sum == null || count <= 0 ? null : sum / count;
        return new Stage(perSecond(s0.sum(counter), s1.sum(counter), seconds), meanBatch,
                perSecond(batchCount0, batchCount1, seconds));
    }

    private static List<ProcessView> processes(EngineSample after, EngineSample before, double seconds) {
        List<ProcessView> processes = new ArrayList<>();
        after.scrapes().forEach((name, scrape) -> {
            Double usage = scrape.samples().sum(CPU_USAGE);
            Double cpus = scrape.samples().sum(CPU_COUNT);
            Double cores = usage == null || cpus == null ? null : usage * cpus;
            processes.add(new ProcessView(name, cores, scrape.samples().sum(MEMORY_USED), scrape.problem()));
        });
        RedisStats.Reading redis = after.redis();
        if (redis.nodes().isEmpty()) {
            processes.add(new ProcessView("redis", perSecond(before.redis().cpuSeconds(), redis.cpuSeconds(), seconds),
                    bytes(redis.memoryBytes()), redis.problem()));
        } else {
            processes.addAll(clusterNodes(before.redis(), redis, seconds));
        }
        after.cpu().forEach((name, reading) -> {
            ProcessCpu.Reading earlier = before.cpu().get(name);
            processes.add(new ProcessView(name, perSecond(earlier == null ? null : earlier.cpuSeconds(),
                    reading.cpuSeconds(), seconds), null, reading.problem()));
        });
        return processes;
    }

    /** A Redis Cluster: their sum first, then each node, matched by address (its role changes at a failover). */
    private static List<ProcessView> clusterNodes(RedisStats.Reading before, RedisStats.Reading redis, double seconds) {
        List<ProcessView> nodes = new ArrayList<>();
        for (RedisStats.NodeReading node : redis.nodes()) {
            Double cpuBefore = before.nodes().stream().filter(n -> n.address().equals(node.address()))
                    .map(RedisStats.NodeReading::cpuSeconds).findFirst().orElse(null);
            nodes.add(new ProcessView("redis " + node.address() + " " + node.role(),
                    perSecond(cpuBefore, node.cpuSeconds(), seconds), bytes(node.memoryBytes()), node.problem()));
        }
        Double cores = nodes.stream().map(ProcessView::cpuCores).filter(Objects::nonNull)
                .reduce(Double::sum).orElse(null);
        List<ProcessView> views = new ArrayList<>();
        views.add(new ProcessView("redis (" + nodes.size() + " nodes)", cores, bytes(redis.memoryBytes()),
                redis.problem()));
        views.addAll(nodes);
        return views;
    }

    private static Double bytes(Long bytes) {
        return bytes == null ? null : bytes.doubleValue();
    }

    private static Double delta(Double before, Double after) {
        return before == null || after == null ? null : Math.max(0, after - before);
    }

    private static Double perSecond(Double before, Double after, double seconds) {
        Double delta = delta(before, after);
        return delta == null ? null : delta / seconds;
    }
}
