package io.flashstock.order.dashboard;

import io.flashstock.order.reconciliation.ReconciliationReport;
import io.flashstock.order.reconciliation.ReconciliationReport.ItemReconciliation;
import io.flashstock.order.reconciliation.ReconciliationReport.PartitionPosition;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The page's verdict and trouble counts as Prometheus gauges ({@code flashstock.reconciliation.*}), summed over
 * items so that their number of series stays small whatever the number of items. Read from the latest report;
 * reading them asks for the next report when one is due, so Prometheus alone keeps them current.
 */
class ReconciliationGauges {

    private final MeterRegistry registry;
    private final Set<Integer> partitions = ConcurrentHashMap.newKeySet();
    private Supplier<ReconciliationReport> latest = () -> null;

    ReconciliationGauges(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Registers the gauges over {@code latest}, which returns null while there is no report. */
    void register(Supplier<ReconciliationReport> latest) {
        this.latest = latest;
        gauge("flashstock.reconciliation.exact", "1 when every invariant of every item holds", r -> r.exact() ? 1 : 0);
        gauge("flashstock.reconciliation.drained", "1 when no outbox row is unsent and Kafka has no lag",
                r -> r.drained() ? 1 : 0);
        gauge("flashstock.reconciliation.failing.items", "Items with an invariant that does not hold",
                r -> r.items().stream().filter(i -> !ItemRow.exact(i)).count());
        gauge("flashstock.reconciliation.drift", "Σ over items of |gate counter − (baseline − Σ orders)|",
                r -> r.items().stream().mapToLong(i -> Math.abs(ItemRow.drift(i))).sum());
        gauge("flashstock.reconciliation.outbox.dead", "Outbox rows of current orders that are DEAD",
                r -> r.items().stream().mapToLong(i -> i.outbox().dead()).sum());
        gauge("flashstock.reconciliation.anomalies", "Deductions the stock database recorded as anomalies",
                r -> r.items().stream().mapToLong(ReconciliationGauges::anomalies).sum());
    }

    /** Called with each new report: a partition seen for the first time gets its lag gauge. */
    void seen(ReconciliationReport report) {
        for (PartitionPosition p : report.kafka().partitions()) {
            if (partitions.add(p.partition())) {
                Gauge.builder("flashstock.reconciliation.kafka.lag", this, g -> g.lagOf(p.partition()))
                        .description("Records of the stock topic not yet committed by stock-consumer's group")
                        .tag("partition", Integer.toString(p.partition())).register(registry);
            }
        }
    }

    private double lagOf(int partition) {
        ReconciliationReport report = latest.get();
        return report == null ? Double.NaN : report.kafka().partitions().stream()
                .filter(p -> p.partition() == partition).mapToLong(PartitionPosition::lag).sum();
    }

    private void gauge(String name, String description, ToDoubleFunction<ReconciliationReport> value) {
        Gauge.builder(name, this, g -> {
            ReconciliationReport report = g.latest.get();
            return report == null ? Double.NaN : value.applyAsDouble(report);
        }).description(description).register(registry);
    }

    private static long anomalies(ItemReconciliation item) {
        return item.stock() == null ? 0 : item.stock().anomalies();
    }
}
