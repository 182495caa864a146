package io.flashstock.order.dashboard;

import io.flashstock.order.dashboard.EngineView.ProcessView;
import io.flashstock.order.dashboard.Quantiles.Percentiles;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The charts the page draws from order-api's history, and the provisioned Grafana dashboard repeats panel for panel
 * (same titles, same series names: {@code DashboardChartsMatchGrafanaTest} holds the two in step).
 */
final class DashboardCharts {

    /**
     * An order series: the {@code flashstock.orders} outcomes it sums, on the gates given (empty: on every gate).
     * The waiting room's and the token gate's refusals are counted {@code rejected} under their gate, so a ticket or
     * token refusal is a {@code rejected} of gate {@code queue} or {@code token}.
     */
    record OrderSeries(String key, String label, Set<String> outcomes, Set<String> gates) {

        boolean counts(Map<String, String> labels) {
            return outcomes.contains(labels.get("outcome")) && (gates.isEmpty() || gates.contains(labels.get("gate")));
        }
    }

    /** Designed refusals (a counter being rebuilt, load shed, a pass refused) are series of their own, not failures. */
    static final List<OrderSeries> ORDERS = List.of(
            new OrderSeries("accepted", "accepted", Set.of("accepted"), Set.of()),
            new OrderSeries("sold_out", "sold out", Set.of("sold_out"), Set.of()),
            new OrderSeries("stock_reloading", "STOCK_RELOADING", Set.of("stock_reloading"), Set.of()),
            new OrderSeries("overloaded", "OVERLOADED", Set.of("overloaded"), Set.of()),
            new OrderSeries("ticket_refused", "ticket refused", Set.of("rejected"), Set.of("queue")),
            new OrderSeries("token_refused", "token refused", Set.of("rejected"), Set.of("token")),
            new OrderSeries("refused", "limit, item or gate refused", Set.of("unknown_item", "limit_reached",
                    "wrong_gate"), Set.of()),
            new OrderSeries("invalid", "invalid request", Set.of("rejected"), Set.of("redis", "db-lock")),
            new OrderSeries("failed", "failed", Set.of("failed"), Set.of()));

    /** The processes whose CPU the page charts, in its order: the three services, then what they run on. */
    static final List<String> PROCESSES = List.of(ProcessScrapes.ORDER_API, ProcessScrapes.OUTBOX_RELAY,
            ProcessScrapes.STOCK_CONSUMER, "redis", "mariadb", "kafka");

    /** One line of a chart: its key in the history, its name in the legend, and how a view gives its value. */
    record Series(String key, String label, Function<EngineView, Double> value) {
    }

    /** A chart: its title (Grafana's panel has the same), the unit of its values, its series. */
    record Chart(String title, String unit, List<Series> series) {
    }

    static final List<Chart> CHARTS = List.of(
            new Chart("Orders per second by outcome", "orders/s", ORDERS.stream()
                    .map(o -> new Series("orders." + o.key(), o.label(), v -> v.orders().get(o.key()).perSecond()))
                    .toList()),
            new Chart("Endpoint latency", "ms", List.of(
                    new Series("latency.p50", "p50", v -> p(v.latency(), Percentiles::p50)),
                    new Series("latency.p99", "p99", v -> p(v.latency(), Percentiles::p99)))),
            new Chart("Accepted → applied in the stock database", "ms", List.of(
                    new Series("e2e.p50", "p50", v -> p(v.endToEnd(), Percentiles::p50)),
                    new Series("e2e.p99", "p99", v -> p(v.endToEnd(), Percentiles::p99)))),
            new Chart("Backlog: outbox unsent and consumer lag", "rows / records", List.of(
                    new Series("backlog.outbox", "outbox unsent", EngineView::outboxBacklog),
                    new Series("backlog.lag", "consumer lag", EngineView::consumerLag))),
            new Chart("CPU per process", "cores", PROCESSES.stream()
                    .map(name -> new Series("cpu." + name, name, v -> cores(v, name))).toList()));

    /** Every series of every chart, in order: the columns of the history. */
    static final List<Series> SERIES = CHARTS.stream().flatMap(c -> c.series().stream()).toList();

    private DashboardCharts() {
    }

    /** The values of every series in a view, in {@link #SERIES} order; NaN where nothing was measured. */
    static float[] values(EngineView view) {
        float[] values = new float[SERIES.size()];
        for (int i = 0; i < values.length; i++) {
            Double value = SERIES.get(i).value().apply(view);
            values[i] = value == null ? Float.NaN : value.floatValue();
        }
        return values;
    }

    private static Double p(Percentiles percentiles, Function<Percentiles, Double> q) {
        return percentiles == null ? null : q.apply(percentiles);
    }

    /** A process's cores; of a Redis Cluster, its nodes' sum (the row named "redis (3 nodes)"). */
    private static Double cores(EngineView view, String process) {
        return view.processes().stream()
                .filter(p -> p.name().equals(process) || p.name().startsWith(process + " (")).findFirst()
                .map(ProcessView::cpuCores).orElse(null);
    }
}
