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

    /** {@code flashstock.orders} outcomes, grouped as the page shows them. */
    static final Map<String, Set<String>> OUTCOME_GROUPS = groups();

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
        OUTCOME_GROUPS.forEach((group, outcomes) -> {
            Double total = api1.sum(ORDERS, l -> outcomes.contains(l.get("outcome")));
            Double earlier = api0.sum(ORDERS, l -> outcomes.contains(l.get("outcome")));
            orders.put(group, new Rate(total, perSecond(earlier, total, seconds)));
        });
        Samples consumer0 = before.of(STOCK_CONSUMER);
        Samples consumer1 = after.of(STOCK_CONSUMER);
        double window = Math.max(0.001, Duration.between(windowStart.at(), after.at()).toNanos() / 1e9);
        return new EngineView(seconds, window, orders,
                Quantiles.between(windowStart.of(ORDER_API).buckets(ORDER_LATENCY), api1.buckets(ORDER_LATENCY)),
                Quantiles.between(windowStart.of(STOCK_CONSUMER).buckets(END_TO_END), consumer1.buckets(END_TO_END)),
                stage(before.of(OUTBOX_RELAY), after.of(OUTBOX_RELAY), RELAY_PUBLISHED, RELAY_BATCH, seconds),
                stage(consumer0, consumer1, CONSUMER_APPLIED, CONSUMER_BATCH, seconds),
                processes(after, before, seconds));
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
            return processes;
        }
        // a Redis Cluster: each node, matched by address (its role changes at a failover), and their sum first
        List<ProcessView> nodes = new ArrayList<>();
        for (RedisStats.NodeReading node : redis.nodes()) {
            Double cpuBefore = before.redis().nodes().stream().filter(n -> n.address().equals(node.address()))
                    .map(RedisStats.NodeReading::cpuSeconds).findFirst().orElse(null);
            nodes.add(new ProcessView("redis " + node.address() + " " + node.role(),
                    perSecond(cpuBefore, node.cpuSeconds(), seconds), bytes(node.memoryBytes()), node.problem()));
        }
        Double cores = nodes.stream().map(ProcessView::cpuCores).filter(Objects::nonNull)
                .reduce(Double::sum).orElse(null);
        processes.add(new ProcessView("redis (" + nodes.size() + " nodes)", cores, bytes(redis.memoryBytes()),
                redis.problem()));
        processes.addAll(nodes);
        return processes;
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

    private static Map<String, Set<String>> groups() {
        Map<String, Set<String>> groups = new LinkedHashMap<>();
        groups.put("accepted", Set.of("accepted"));
        groups.put("sold_out", Set.of("sold_out"));
        // refused for the request's own sake or by design (load shed, a counter being rebuilt); nothing was sold
        groups.put("refused", Set.of("unknown_item", "limit_reached", "wrong_gate", "rejected", "overloaded",
                "stock_reloading"));
        groups.put("failed", Set.of("failed"));
        return groups;
    }
}
