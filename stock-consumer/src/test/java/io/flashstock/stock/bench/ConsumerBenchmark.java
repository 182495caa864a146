package io.flashstock.stock.bench;

import io.flashstock.stock.support.Events;
import io.flashstock.stock.support.Http;
import io.flashstock.stock.support.StockDatabase;
import io.flashstock.stock.support.StockTopic;
import io.flashstock.testsupport.FreePort;
import io.flashstock.testsupport.TestInfrastructure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static io.flashstock.stock.support.Events.deducted;
import static io.flashstock.stock.support.Events.reset;

/**
 * Measures the built stock-consumer jar against the real broker, database and Redis (see
 * {@code scripts/component-bench consumer}, which builds the classpath and runs this).
 * <ol>
 *   <li>throughput, per lock mode: a fresh topic is pre-filled with N deductions for a few items, then a fresh
 *       consumer process drains it; events/s = N / (last processed_at − first processed_at);</li>
 *   <li>latency: a running consumer (lock mode redisson) receives deductions at a fixed rate for a while; the
 *       histogram of the service's own {@code flashstock.consumer.event.latency} timer (occurredAt → commit) gives
 *       p50/p95/p99.</li>
 * </ol>
 * One CSV row per run is appended to the output file. Options: {@code --events N --items K --modes a,b
 * --rate R --rate-seconds S --warmup-seconds W --out FILE}.
 */
public final class ConsumerBenchmark {

    private static final int PARTITIONS = 3;
    private static final Pattern BUCKET =
            Pattern.compile("^flashstock_consumer_event_latency_seconds_bucket\\{.*le=\"([^\"]+)\".*\\} ([0-9.eE+-]+)");
    private static final long BASELINE = Long.MAX_VALUE / 4;
    private static final String CSV_HEADER =
            "timestamp,scenario,lock_mode,events,items,seconds,events_per_second,target_rate,p50_ms,p95_ms,p99_ms,max_bucket_ms";

    private final Map<String, String> options;
    private final TestInfrastructure infra = TestInfrastructure.get();
    private final Path jar;

    private ConsumerBenchmark(Map<String, String> options) {
        this.options = options;
        this.jar = builtJar();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>(Map.of(
                "events", "50000", "items", "6", "modes", "redisson,none",
                "rate", "1000", "rate-seconds", "20", "warmup-seconds", "5",
                "out", "results/consumer-bench.csv"));
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        new ConsumerBenchmark(options).run();
    }

    private void run() throws Exception {
        int events = Integer.parseInt(options.get("events"));
        int items = Integer.parseInt(options.get("items"));
        for (String mode : options.get("modes").split(",")) {
            if (!mode.isBlank()) {
                throughput(mode.trim(), events, items);
            }
        }
        latency(Integer.parseInt(options.get("rate")), Integer.parseInt(options.get("rate-seconds")), items);
    }

    private void throughput(String mode, int events, int itemCount) throws Exception {
        String database = infra.createDatabase("bench");
        var db = new StockDatabase(infra.jdbcUrl(database));
        try (var topic = StockTopic.create("bench-throughput", PARTITIONS)) {
            List<String> items = items(itemCount);
            items.forEach(item -> topic.send(reset(item, BASELINE, 1)));
            for (int i = 0; i < events; i++) {
                topic.send(deducted(items.get(ThreadLocalRandom.current().nextInt(itemCount)), 1, 1));
            }
            topic.flush();
            System.out.printf("throughput/%s: topic pre-filled with %d deductions for %d items%n", mode, events, itemCount);
            Consumer consumer = startConsumer(database, topic, mode);
            try {
                awaitCount(db, events + itemCount, Duration.ofMinutes(10), consumer.process());
            } finally {
                stop(consumer.process());
            }
            var span = db.jdbc().queryForMap("SELECT MIN(processed_at) AS first, MAX(processed_at) AS last FROM processed_event");
            double seconds = Duration.between(instant(span.get("first")), instant(span.get("last"))).toNanos() / 1e9;
            double perSecond = (events + itemCount) / seconds;
            System.out.printf("throughput/%s: %d events in %.2f s = %.0f events/s%n", mode, events + itemCount, seconds, perSecond);
            csv("throughput", mode, events + itemCount, itemCount, seconds, perSecond, "", new double[]{});
        } finally {
            db.jdbc().execute("DROP DATABASE " + database);
        }
    }

    private void latency(int rate, int seconds, int itemCount) throws Exception {
        String database = infra.createDatabase("bench");
        var db = new StockDatabase(infra.jdbcUrl(database));
        try (var topic = StockTopic.create("bench-latency", PARTITIONS)) {
            List<String> items = items(itemCount);
            items.forEach(item -> topic.send(reset(item, BASELINE, 1)));
            topic.flush();
            Consumer consumer = startConsumer(database, topic, "redisson");
            try {
                awaitCount(db, itemCount, Duration.ofMinutes(1), consumer.process());
                int warmup = rate * Integer.parseInt(options.get("warmup-seconds"));
                sendAtRate(topic, items, rate, warmup);
                awaitCount(db, itemCount + warmup, Duration.ofMinutes(2), consumer.process());
                // only what the measured window adds counts: not the resets sent before the consumer started,
                // nor the warm-up of a fresh JVM
                Map<Double, Double> before = latencyBuckets(consumer.port());

                int total = rate * seconds;
                double sentSeconds = sendAtRate(topic, items, rate, total);
                awaitCount(db, itemCount + warmup + total, Duration.ofMinutes(2), consumer.process());
                double[] percentiles = percentiles(before, latencyBuckets(consumer.port()));
                System.out.printf("latency at %d events/s (%d sent in %.1f s): p50 <= %.1f ms, p95 <= %.1f ms, "
                                + "p99 <= %.1f ms; mean batch %.1f ms, mean lock wait %.1f ms%n", rate, total,
                        sentSeconds, percentiles[0], percentiles[1], percentiles[2],
                        meanMillis(consumer.port(), "flashstock.consumer.batch.duration"),
                        meanMillis(consumer.port(), "flashstock.consumer.lock.wait"));
                csv("latency", "redisson", total, itemCount, sentSeconds, total / sentSeconds, Integer.toString(rate),
                        percentiles);
            } finally {
                stop(consumer.process());
            }
        } finally {
            db.jdbc().execute("DROP DATABASE " + database);
        }
    }

    /** Sends deductions paced to {@code rate} per second (open model: the schedule does not wait for the consumer). */
    private static double sendAtRate(StockTopic topic, List<String> items, int rate, int count)
            throws InterruptedException {
        long started = System.nanoTime();
        for (int i = 0; i < count; i++) {
            long wait = started + (long) (i * 1e9 / rate) - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            topic.send(deducted(items.get(i % items.size()), 1, 1));
        }
        topic.flush();
        return (System.nanoTime() - started) / 1e9;
    }

    private Consumer startConsumer(String database, StockTopic topic, String lockMode) throws IOException {
        int port = FreePort.find();
        Path log = Path.of("stock-consumer/target/bench-" + lockMode + "-" + port + ".log");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms512m", "-Xmx512m", "-XX:+UseG1GC", "-jar", jar.toString(),
                "--server.port=" + port,
                "--spring.datasource.url=" + infra.jdbcUrl(database),
                "--spring.datasource.username=" + infra.dbUser(),
                "--spring.datasource.password=" + infra.dbPassword(),
                "--spring.kafka.bootstrap-servers=" + infra.kafkaBootstrapServers(),
                "--spring.data.redis.host=" + infra.redisHost(),
                "--spring.data.redis.port=" + infra.redisPort(),
                "--flashstock.consumer.topic=" + topic.name(),
                "--spring.kafka.consumer.group-id=" + topic.name(),
                "--flashstock.lock.mode=" + lockMode));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
        System.out.printf("consumer (lock mode %s) on port %d, log %s%n", lockMode, port, log);
        return new Consumer(process, port);
    }

    /** A consumer process of this run and its HTTP port. */
    private record Consumer(Process process, int port) {
    }

    /** Mean of a timer since the consumer started, from its metrics endpoint. */
    private static double meanMillis(int consumerPort, String timer) {
        var measurements = Http.get(consumerPort, "/actuator/metrics/" + timer).body().get("measurements");
        double count = 0;
        double total = 0;
        for (var measurement : measurements) {
            switch (measurement.get("statistic").asString()) {
                case "COUNT" -> count = measurement.get("value").asDouble();
                case "TOTAL_TIME" -> total = measurement.get("value").asDouble();
                default -> { }
            }
        }
        return count == 0 ? 0 : total / count * 1000;
    }

    /** The cumulative buckets of the {@code flashstock.consumer.event.latency} histogram: upper bound (s) → count. */
    private static Map<Double, Double> latencyBuckets(int consumerPort) throws IOException, InterruptedException {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + consumerPort + "/actuator/prometheus"))
                .build();
        String body = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).body();
        Map<Double, Double> buckets = new TreeMap<>();
        for (String line : body.lines().toList()) {
            Matcher bucket = BUCKET.matcher(line);
            if (bucket.find()) {
                double bound = bucket.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY
                        : Double.parseDouble(bucket.group(1));
                buckets.put(bound, Double.parseDouble(bucket.group(2)));
            }
        }
        return buckets;
    }

    /**
     * p50/p95/p99 in milliseconds of what was recorded between two snapshots, each the upper bound of the first
     * bucket that holds the percentile (Micrometer's buckets are about 10 % apart), and the highest such bound.
     */
    private static double[] percentiles(Map<Double, Double> before, Map<Double, Double> after) {
        Map<Double, Double> window = new TreeMap<>();
        after.forEach((bound, count) -> window.put(bound, count - before.getOrDefault(bound, 0.0)));
        double count = window.get(Double.POSITIVE_INFINITY);
        double[] phis = {0.5, 0.95, 0.99, 1.0};
        double[] result = new double[phis.length];
        for (int i = 0; i < phis.length; i++) {
            double rank = phis[i] * count;
            result[i] = window.entrySet().stream().filter(b -> b.getValue() >= rank).findFirst().orElseThrow()
                    .getKey() * 1000;
        }
        return result;
    }

    private static void awaitCount(StockDatabase db, long expected, Duration deadline, Process consumer)
            throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        long count = -1;
        while (System.nanoTime() < end) {
            if (!consumer.isAlive()) {
                throw new IllegalStateException("consumer exited with " + consumer.exitValue());
            }
            if (tableReady(db)) {
                count = db.count("processed_event");
                if (count >= expected) {
                    return;
                }
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new IllegalStateException("only " + count + " of " + expected + " events processed in " + deadline);
    }

    private static boolean tableReady(StockDatabase db) {
        Long tables = db.jdbc().queryForObject("SELECT COUNT(*) FROM information_schema.tables "
                + "WHERE table_schema = DATABASE() AND table_name = 'processed_event'", Long.class);
        return tables != null && tables > 0;
    }

    private static void stop(Process process) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    private static List<String> items(int count) {
        return Stream.generate(() -> Events.item("bench")).limit(count).toList();
    }

    private static Instant instant(Object value) {
        if (value instanceof LocalDateTime local) {
            return local.toInstant(ZoneOffset.UTC);
        }
        return ((Timestamp) value).toLocalDateTime().toInstant(ZoneOffset.UTC);
    }

    private void csv(String scenario, String mode, long events, int items, double seconds, double perSecond,
                     String targetRate, double[] latencies) throws IOException {
        Path out = Path.of(options.get("out"));
        Files.createDirectories(out.toAbsolutePath().getParent());
        if (!Files.exists(out)) {
            Files.writeString(out, CSV_HEADER + "\n");
        }
        String ms = latencies.length == 0 ? ",,," : String.format(Locale.ROOT, "%.1f,%.1f,%.1f,%.1f",
                latencies[0], latencies[1], latencies[2], latencies[3]);
        Files.writeString(out, String.format(Locale.ROOT, "%s,%s,%s,%d,%d,%.2f,%.0f,%s,%s%n", Instant.now(), scenario,
                mode, events, items, seconds, perSecond, targetRate, ms), StandardOpenOption.APPEND);
    }

    private static Path builtJar() {
        Path target = Path.of("stock-consumer/target");
        try (Stream<Path> files = Files.list(target)) {
            return files.filter(p -> p.getFileName().toString().matches("stock-consumer-[^-]+.*\\.jar"))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no jar in " + target + ": package first"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
