package io.flashstock.order.dashboard;

import io.flashstock.order.dashboard.DashboardCharts.Chart;
import io.flashstock.order.dashboard.DashboardCharts.OrderSeries;
import io.flashstock.order.dashboard.DashboardCharts.Series;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page's charts and the provisioned Grafana dashboard (monitoring/grafana/dashboards/flashstock.json) tell the
 * same story: for every chart a time-series panel of the same title, unit and series names in the same order, and
 * each order series counting the same outcomes on the same gates. A chart added to one and not the other fails here.
 */
class DashboardChartsMatchGrafanaTest {

    private static final Path GRAFANA = Path.of("../monitoring/grafana/dashboards/flashstock.json");
    /** The page's units as Grafana names them (Grafana scales seconds to ms itself). */
    private static final Map<String, String> GRAFANA_UNIT = Map.of("orders/s", "reqps", "ms", "s",
            "rows / records", "short", "cores", "short");
    private static final Pattern MATCHER = Pattern.compile("(outcome|gate)=~\"([^\"]*)\"");

    @Test
    void everyChartIsAGrafanaPanelWithTheSameSeries() throws IOException {
        for (Chart chart : DashboardCharts.CHARTS) {
            JsonNode panel = panel(chart.title());
            assertThat(panel.path("type").asString()).as(chart.title()).isEqualTo("timeseries");
            assertThat(panel.path("fieldConfig").path("defaults").path("unit").asString()).as(chart.title())
                    .isEqualTo(GRAFANA_UNIT.get(chart.unit()));
            assertThat(targets(panel).stream().map(t -> t.path("legendFormat").asString()).toList())
                    .as("the series of %s", chart.title())
                    .isEqualTo(chart.series().stream().map(Series::label).toList());
        }
    }

    @Test
    void everyOrderSeriesCountsTheSameOutcomesOnTheSameGatesInGrafana() throws IOException {
        List<JsonNode> targets = targets(panel(DashboardCharts.CHARTS.get(0).title()));
        assertThat(targets).hasSameSizeAs(DashboardCharts.ORDERS);
        for (int i = 0; i < targets.size(); i++) {
            OrderSeries series = DashboardCharts.ORDERS.get(i);
            Map<String, Set<String>> matched = Map.of("outcome", new TreeSet<>(), "gate", new TreeSet<>());
            Matcher m = MATCHER.matcher(targets.get(i).path("expr").asString());
            while (m.find()) {
                matched.get(m.group(1)).addAll(Arrays.asList(m.group(2).split("\\|")));
            }
            assertThat(matched.get("outcome")).as(series.key()).isEqualTo(new TreeSet<>(series.outcomes()));
            assertThat(matched.get("gate")).as(series.key()).isEqualTo(new TreeSet<>(series.gates()));
        }
    }

    private static JsonNode panel(String title) throws IOException {
        JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(GRAFANA));
        return StreamSupport.stream(dashboard.path("panels").spliterator(), false)
                .filter(p -> p.path("title").asString().equals(title)).findFirst()
                .orElseThrow(() -> new AssertionError("no Grafana panel titled \"" + title + "\" in " + GRAFANA));
    }

    private static List<JsonNode> targets(JsonNode panel) {
        return StreamSupport.stream(panel.path("targets").spliterator(), false).toList();
    }
}
