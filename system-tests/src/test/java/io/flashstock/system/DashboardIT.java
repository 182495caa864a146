package io.flashstock.system;

import io.flashstock.testsupport.TestInfrastructure;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard as a person uses it, in a real headless chromium against the three service jars: refused
 * without the token, live with it, its numbers following orders through the pipeline, and a DEAD outbox row and
 * an anomaly made on purpose standing out. Then the same numbers as Prometheus text: every metric the provisioned
 * Grafana dashboard queries is exposed by the service it scrapes.
 */
class DashboardIT {

    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Pattern METRIC = Pattern.compile("\\b((?:flashstock|stock|process|jvm|system)_[a-z0-9_]+)");

    private static Pipeline pipeline;
    private static ChromeDriver browser;

    @BeforeAll
    static void start() {
        browser = HeadlessChromium.start();
        pipeline = new Pipeline(processCpuFromTheStack());
    }

    /**
     * MariaDB's and Kafka's CPU from the pid files of the native stack the tests run on, as scripts/stack gives them
     * to order-api.
     */
    private static Map<String, String> processCpuFromTheStack() {
        String state = System.getenv("FLASHSTOCK_STATE");
        Path stack = state == null || state.isBlank() ? TestInfrastructure.repositoryRoot().resolve(".stack")
                : Path.of(state);
        Map<String, String> env = new HashMap<>();
        for (String process : List.of("mariadb", "kafka")) {
            Path pidFile = stack.resolve(process).resolve(process + ".pid");
            if (Files.isRegularFile(pidFile)) {
                env.put("FLASHSTOCK_DASHBOARD_PROCESSCPU_" + process.toUpperCase(Locale.ROOT),
                        pidFile.toUri().toString());
            }
        }
        return env;
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @Test
    void showsTheEngineLiveToWhoeverHasTheToken() throws Exception {
        String item = "dash-" + UUID.randomUUID().toString().substring(0, 8);
        pipeline.resetStock(item, 10);
        String page = pipeline.orderApiUrl() + "/dashboard";

        browser.get(page);
        await("refused without the token", d -> text("status").startsWith("refused: 401 ADMIN_UNAUTHORIZED"));
        assertThat(browser.findElement(By.id("token-form")).isDisplayed()).isTrue();
        assertThat(browser.findElements(By.cssSelector("#items tbody tr"))).isEmpty();

        browser.get("about:blank"); // a new document: a fragment change alone would not load the page again
        browser.get(page + "#token=wrong-token");
        await("refused with a wrong token", d -> text("status").startsWith("refused: 401"));

        browser.get("about:blank");
        browser.get(page + "#token=" + Pipeline.ADMIN_TOKEN);
        await("the item listed with no orders", d -> cell(item, "orders").equals("0"));
        assertThat(browser.getCurrentUrl()).as("the token leaves the address bar").doesNotContain("token");
        assertThat(text("status")).startsWith("live");

        everyTableFitsTheWindow();
        for (int i = 0; i < 3; i++) {
            assertThat(pipeline.order(item, 1)).isEqualTo(200);
        }
        await("the orders counted", d -> cell(item, "orders").equals("3")
                && Double.parseDouble(text("orders-accepted-total").replace(",", "")) >= 3);
        await("the processes measured", d -> browser.findElements(By.cssSelector("#processes tbody tr")).size()
                        == (processCpuFromTheStack().isEmpty() ? 4 : 6)
                && processProblems().isEmpty());
        await("the pipeline drained into the stock database, nothing highlighted", d -> text("verdict").equals("exact")
                && cell(item, "stock").equals("7") && cell(item, "remaining").equals("7")
                && !cellElement(item, "dead").getAttribute("class").contains("bad"));

        pipeline.updateOrdersDatabase("UPDATE outbox_event SET status = 'DEAD' WHERE aggregate_key = ? "
                + "AND event_type = 'StockDeducted' LIMIT 1", item);
        pipeline.updateStockDatabase("INSERT INTO stock_anomaly (event_id, item_code, kind, event_type, "
                + "event_generation, quantity, detail, occurred_at, recorded_at) VALUES (?, ?, 'INSUFFICIENT_STOCK', "
                + "'StockDeducted', 1, 1, 'made by DashboardIT', UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))",
                UUID.randomUUID().toString(), item);

        await("the DEAD row and the anomaly highlighted", d -> cell(item, "dead").equals("1")
                && cellElement(item, "dead").getAttribute("class").contains("bad")
                && cellElement(item, "anomalies").getAttribute("class").contains("bad")
                && rowOf(item).getAttribute("class").contains("trouble")
                && text("verdict").equals("not-exact")
                && browser.findElement(By.id("verdict")).getAttribute("class").contains("verdict-not-exact"));

        chartsHoldTheLoadAndTheWholeHistoryOnAFreshPage();
        everyGrafanaMetricIsExposed();
    }

    /**
     * A short load, orders one after another until each chart holds points of it (the orders, both latencies, the
     * backlog and the CPU of every process), the orders' chart more than a fresh page could gather by itself, and the
     * latency table shows percentiles (they cover the last 10 s: on a
     * busy machine, orders placed once could be out of that window before the page is read). A page opened
     * afterwards draws the same points at once, from order-api's history, not from its own polling.
     */
    private void chartsHoldTheLoadAndTheWholeHistoryOnAFreshPage() throws Exception {
        String item = "chart-" + UUID.randomUUID().toString().substring(0, 8);
        pipeline.resetStock(item, 1_000_000);
        List<String> measured = new ArrayList<>(List.of("orders.accepted", "latency.p50", "latency.p99",
                "e2e.p50", "e2e.p99", "cpu.order-api", "cpu.outbox-relay", "cpu.stock-consumer", "cpu.redis"));
        List<String> present = new ArrayList<>(List.of("backlog.outbox", "backlog.lag"));
        if (!processCpuFromTheStack().isEmpty()) {
            measured.addAll(List.of("cpu.mariadb", "cpu.kafka"));
        }
        // the load lasts until the page holds more points than a fresh page polling once a second gathers in `wait`
        Duration wait = Duration.ofSeconds(10);
        int moreThanAFreshPageGathers = (int) wait.toSeconds() + 2;
        AtomicBoolean loading = new AtomicBoolean(true);
        ExecutorService client = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> load = client.submit(() -> {
                int placed = 0;
                while (loading.get()) {
                    assertThat(pipeline.order(item, 1)).isEqualTo(200);
                    placed++;
                }
                return placed;
            });
            await("every chart holds points of the load, the latency table its percentiles", d -> {
                if (load.isDone()) {
                    return true; // the load failed: get() below says why
                }
                Map<String, int[]> points = chartPoints();
                return measured.stream().allMatch(key -> points.containsKey(key) && points.get(key)[1] > 0)
                        && points.get("orders.accepted")[0] > moreThanAFreshPageGathers
                        && present.stream().allMatch(key -> points.containsKey(key) && points.get(key)[0] > 0)
                        && !text("latency-p99").equals("—") && !text("e2e-p99").equals("—");
            });
            loading.set(false);
            assertThat(load.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("orders placed").isPositive();
        } finally {
            loading.set(false);
            client.shutdown();
        }
        int held = chartPoints().get("orders.accepted")[0];
        assertThat(held).as("points held: more than a page polling once a second could gather in %s", wait)
                .isGreaterThan(moreThanAFreshPageGathers);

        browser.get("about:blank");
        browser.get(pipeline.orderApiUrl() + "/dashboard#token=" + Pipeline.ADMIN_TOKEN);
        new WebDriverWait(browser, wait).ignoring(StaleElementReferenceException.class)
                .withMessage(() -> "a fresh page draws the history it did not see: " + chartPoints().entrySet()
                        .stream().map(e -> e.getKey() + "=" + e.getValue()[0]).toList())
                .until(d -> chartPoints().getOrDefault("orders.accepted", new int[2])[0] >= held
                        && chartPoints().get("orders.accepted")[1] > 0);
    }

    /** Per series of every chart on the page: its points with a value, and those above zero. */
    private static Map<String, int[]> chartPoints() {
        Map<String, int[]> points = new HashMap<>();
        for (WebElement chart : browser.findElements(By.cssSelector("#charts .chart"))) {
            JsonMapper.builder().build().readTree(chart.getAttribute("data-points")).properties()
                    .forEach(e -> points.put(e.getKey(), new int[] {e.getValue().get(0).asInt(),
                            e.getValue().get(1).asInt()}));
        }
        return points;
    }

    /** At 1,280 px and at 1,400 px (where the Pipeline table was cut), no table is wider than its box. */
    private void everyTableFitsTheWindow() {
        for (int width : new int[] {1280, 1400}) {
            browser.manage().window().setSize(new Dimension(width, 1000));
            await("every table fits at " + width + " px", d -> tablesWiderThanTheirBox().isEmpty());
        }
    }

    private static List<?> tablesWiderThanTheirBox() {
        return (List<?>) browser.executeScript("return [...document.querySelectorAll('table')]"
                + ".filter(t => t.parentElement.scrollWidth > t.parentElement.clientWidth + 1).map(t => t.id);");
    }

    /** The names the provisioned Grafana dashboard's queries use, against the three services' Prometheus text. */
    private void everyGrafanaMetricIsExposed() throws Exception {
        var dashboard = TestInfrastructure.repositoryRoot().resolve("monitoring/grafana/dashboards/flashstock.json");
        Set<String> queried = new TreeSet<>();
        JsonMapper.builder().build().readTree(Files.readString(dashboard)).findValues("expr").forEach(expr -> {
            // label matchers out first: an outcome such as stock_reloading is no metric name
            Matcher m = METRIC.matcher(expr.asString().replaceAll("\\{[^}]*}", ""));
            while (m.find()) {
                queried.add(m.group(1));
            }
        });
        assertThat(queried).isNotEmpty();
        Set<String> exposed = List.of(pipeline.orderApi, pipeline.relay, pipeline.consumer).stream()
                .flatMap(service -> pipeline.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + service.port() + "/actuator/prometheus")).build()).body().lines())
                .filter(line -> !line.startsWith("#") && !line.isBlank())
                .map(line -> line.split("[{ ]", 2)[0]).collect(Collectors.toSet());
        assertThat(exposed).as("metric names exposed by the services").containsAll(queried);
        assertThat(exposed).contains("flashstock_reconciliation_outbox_dead", "flashstock_reconciliation_kafka_lag");
    }

    /** Waits for the condition; the page rebuilds its tables every second, so an element may go stale meanwhile. */
    private static void await(String what, Function<WebDriver, Boolean> condition) {
        new WebDriverWait(browser, DEADLINE).ignoring(StaleElementReferenceException.class).withMessage(() -> what + "; the page said: "
                + browser.findElement(By.tagName("body")).getText()).until(condition);
    }

    private static String text(String id) {
        return browser.findElement(By.id(id)).getText();
    }

    private static List<String> processProblems() {
        return browser.findElements(By.cssSelector("#processes tbody td.bad")).stream().map(WebElement::getText)
                .toList();
    }

    private static WebElement rowOf(String item) {
        return browser.findElement(By.cssSelector("#items tbody tr[data-item='" + item + "']"));
    }

    private static WebElement cellElement(String item, String column) {
        return rowOf(item).findElement(By.cssSelector("td." + column));
    }

    /** A cell of the item's row; empty while the row is not there yet. */
    private static String cell(String item, String column) {
        var rows = browser.findElements(By.cssSelector("#items tbody tr[data-item='" + item + "']"));
        return rows.isEmpty() ? "" : rows.get(0).findElement(By.cssSelector("td." + column)).getText();
    }
}
