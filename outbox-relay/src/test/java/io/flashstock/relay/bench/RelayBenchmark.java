package io.flashstock.relay.bench;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.relay.OutboxFixture;
import io.flashstock.relay.TestTopic;
import io.flashstock.testsupport.FreePort;
import io.flashstock.testsupport.TestInfrastructure;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Measures the built relay jar, run as its own JVM like {@code scripts/stack} runs it, against a throw-away
 * database and topic on the running stack:
 * <ol>
 *   <li><b>throughput</b>: a pre-filled table (rows written as WARMUP, which the relay never claims, then
 *       released in one UPDATE) drained as fast as the relay can: rows / (last sent_at − release);</li>
 *   <li><b>latency</b>: single-row inserts, each its own transaction like order-api's, at a fixed rate
 *       (open model: the schedule does not wait for the relay) for a fixed time; created_at → sent_at per
 *       row, p50/p99/max. sent_at is written right after the batch's last acknowledgement, so this is an
 *       upper bound of created → acknowledged.</li>
 * </ol>
 * One CSV line per phase is appended to {@code --out}. Run it through {@code scripts/component-bench relay},
 * alone on the machine. Relay settings come from the environment (FLASHSTOCK_RELAY_BATCH_SIZE, ...), which
 * the relay process inherits.
 */
public final class RelayBenchmark {

    private static final String CSV_HEADER = "started_at,phase,rows,target_rate_per_s,achieved_insert_rate_per_s,"
            + "duration_s,throughput_rows_per_s,latency_p50_ms,latency_p99_ms,latency_max_ms,relay_settings";
    private static final Duration TICK = Duration.ofMillis(10);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration DRAIN_DEADLINE = Duration.ofMinutes(5);
    private static final Duration READY_DEADLINE = Duration.ofSeconds(120);
    private static final int INSERT_THREADS = 4;
    private static final int KEYS = 100;
    private static final int PREFILL_CHUNK = 10_000;

    private final Options options;
    private final OutboxFixture outbox;
    private final String startedAt = DateTimeFormatter.ISO_INSTANT.format(Instant.now());
    private String relaySettings = "";

    private RelayBenchmark(Options options, OutboxFixture outbox) {
        this.options = options;
        this.outbox = outbox;
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        var infra = TestInfrastructure.get();
        OutboxFixture outbox = OutboxFixture.create("bench_relay");
        TestTopic topic = TestTopic.create(infra.kafkaBootstrapServers(), "bench-relay", options.partitions);
        Process relay = startRelay(options, outbox, topic);
        try {
            var bench = new RelayBenchmark(options, outbox);
            bench.relaySettings = readySettingsLine(options.relayLog);
            if (options.warmupRows > 0) {
                bench.throughput("warmup", options.warmupRows);
            }
            bench.throughput("throughput", options.rows);
            if (options.durationSeconds > 0) {
                bench.latency();
            }
            System.out.println("results appended to " + options.out);
        } finally {
            relay.destroy();
            if (!relay.waitFor(30, TimeUnit.SECONDS)) {
                relay.destroyForcibly();
            }
            topic.delete();
            outbox.drop();
        }
    }

    private void throughput(String phase, int rows) throws SQLException, IOException {
        String keyPrefix = phase + "-" + System.nanoTime();
        Instant created = Instant.now();
        for (int from = 0; from < rows; from += PREFILL_CHUNK) {
            List<OutboxFixture.Row> chunk = new ArrayList<>();
            for (int i = from; i < Math.min(rows, from + PREFILL_CHUNK); i++) {
                chunk.add(OutboxFixture.Row.deduction(keyPrefix + "-" + (i % KEYS), OutboxStatus.WARMUP, created));
            }
            outbox.insert(chunk);
        }
        LocalDateTime released;
        try (Connection c = outbox.connect(); PreparedStatement release = c.prepareStatement(
                "UPDATE outbox_event SET status = ? WHERE status = ? AND aggregate_key LIKE ?")) {
            release.setString(1, OutboxStatus.NEW.name());
            release.setString(2, OutboxStatus.WARMUP.name());
            release.setString(3, keyPrefix + "-%");
            release.executeUpdate();
            released = databaseTime(c, "SELECT UTC_TIMESTAMP(6)");
        }
        awaitSent(keyPrefix, rows);
        LocalDateTime lastSent;
        try (Connection c = outbox.connect()) {
            // sent_at is written on the database's clock too
            lastSent = databaseTime(c, "SELECT MAX(sent_at) FROM outbox_event WHERE aggregate_key LIKE '"
                    + keyPrefix + "-%'");
        }
        double seconds = Duration.between(released, lastSent).toNanos() / 1e9;
        double perSecond = rows / seconds;
        System.out.printf(Locale.ROOT, "%s: %d rows in %.2f s = %.0f rows/s%n", phase, rows, seconds, perSecond);
        appendCsv(phase, rows, "", "", seconds, perSecond, "", "", "");
    }

    private void latency() throws Exception {
        String keyPrefix = "latency-" + System.nanoTime();
        long total = (long) options.rate * options.durationSeconds;
        BlockingQueue<String> keys = new ArrayBlockingQueue<>((int) Math.min(Integer.MAX_VALUE, total));
        ExecutorService inserters = Executors.newFixedThreadPool(INSERT_THREADS);
        AtomicLong inserted = new AtomicLong();
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < INSERT_THREADS; t++) {
            workers.add(inserters.submit(() -> insertFromQueue(keys, inserted)));
        }
        long start = System.nanoTime();
        long scheduled = 0;
        long tickNanos = TICK.toNanos();
        for (long next = start; scheduled < total; next += tickNanos) {
            long due = Math.min(total, (long) ((System.nanoTime() - start) / 1e9 * options.rate));
            for (; scheduled < due; scheduled++) {
                if (!keys.offer(keyPrefix + "-" + (scheduled % KEYS))) {
                    throw new IllegalStateException("insert queue full");
                }
            }
            long sleep = next + tickNanos - System.nanoTime();
            if (sleep > 0) {
                TimeUnit.NANOSECONDS.sleep(sleep);
            }
        }
        for (int t = 0; t < INSERT_THREADS; t++) {
            keys.put("");
        }
        for (var worker : workers) {
            worker.get();
        }
        double insertSeconds = (System.nanoTime() - start) / 1e9;
        inserters.shutdown();
        awaitSent(keyPrefix, total);

        List<Long> micros = new ArrayList<>();
        try (Connection c = outbox.connect(); PreparedStatement ps = c.prepareStatement(
                "SELECT TIMESTAMPDIFF(MICROSECOND, created_at, sent_at) FROM outbox_event WHERE aggregate_key LIKE ?")) {
            ps.setString(1, keyPrefix + "-%");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    micros.add(rs.getLong(1));
                }
            }
        }
        micros.sort(null);
        double p50 = percentile(micros, 0.50);
        double p99 = percentile(micros, 0.99);
        double max = micros.get(micros.size() - 1) / 1000.0;
        double achieved = inserted.get() / insertSeconds;
        System.out.printf(Locale.ROOT, "latency: %d rows at %.0f/s (target %d/s): p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                total, achieved, options.rate, p50, p99, max);
        appendCsv("latency", total, Integer.toString(options.rate), fmt(achieved), insertSeconds, Double.NaN,
                fmt(p50), fmt(p99), fmt(max));
    }

    private Void insertFromQueue(BlockingQueue<String> keys, AtomicLong inserted) throws Exception {
        // created_at on the database's clock, like the relay's sent_at, so the two compare exactly
        try (Connection c = outbox.connect(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO outbox_event (event_id, aggregate_key, event_type, payload, status, attempts, "
                        + "available_at, created_at) VALUES (?,?,?,?,?,0,UTC_TIMESTAMP(6),UTC_TIMESTAMP(6))")) {
            for (String key = keys.take(); !key.isEmpty(); key = keys.take()) {
                var row = OutboxFixture.Row.deduction(key, OutboxStatus.NEW, Instant.now());
                ps.setString(1, row.eventId());
                ps.setString(2, row.key());
                ps.setString(3, row.eventType());
                ps.setString(4, row.payload());
                ps.setString(5, row.status().name());
                ps.executeUpdate();
                inserted.incrementAndGet();
            }
        }
        return null;
    }

    private void awaitSent(String keyPrefix, long rows) throws IOException {
        long deadline = System.nanoTime() + DRAIN_DEADLINE.toNanos();
        while (outbox.count("aggregate_key LIKE ? AND status = 'SENT'", keyPrefix + "-%") < rows) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("relay did not drain " + rows + " rows within " + DRAIN_DEADLINE
                        + "; see " + options.relayLog);
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
    }

    private static LocalDateTime databaseTime(Connection c, String query) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getObject(1, LocalDateTime.class);
        }
    }

    private void appendCsv(String phase, long rows, String targetRate, String achievedRate, double seconds,
                           double throughput, String p50, String p99, String max) throws IOException {
        Path out = options.out;
        Files.createDirectories(out.toAbsolutePath().getParent());
        boolean fresh = !Files.exists(out);
        String line = String.join(",", startedAt, phase, Long.toString(rows), targetRate, achievedRate,
                fmt(seconds), Double.isNaN(throughput) ? "" : fmt(throughput), p50, p99, max,
                "\"" + relaySettings.replace("\"", "'") + "\"") + "\n";
        Files.writeString(out, (fresh ? CSV_HEADER + "\n" : "") + line, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    private static double percentile(List<Long> sortedMicros, double quantile) {
        int index = (int) Math.ceil(quantile * sortedMicros.size()) - 1;
        return sortedMicros.get(Math.max(0, index)) / 1000.0;
    }

    private static String fmt(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static Process startRelay(Options options, OutboxFixture outbox, TestTopic topic) throws Exception {
        Path jar;
        Path target = TestInfrastructure.repositoryRoot().resolve("outbox-relay/target");
        try (Stream<Path> files = Files.list(target)) {
            jar = files.filter(p -> p.getFileName().toString().matches("outbox-relay-[^-]+.*\\.jar"))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no relay jar in " + target));
        }
        int port = FreePort.find();
        var infra = TestInfrastructure.get();
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms" + options.relayHeap, "-Xmx" + options.relayHeap, "-XX:+UseG1GC", "-jar", jar.toString(),
                "--server.port=" + port);
        Files.createDirectories(options.relayLog.toAbsolutePath().getParent());
        var builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(options.relayLog.toFile()));
        builder.environment().putAll(Map.of(
                "ORDERS_DB_URL", outbox.jdbcUrl(),
                "DB_USER", infra.dbUser(),
                "DB_PASSWORD", infra.dbPassword(),
                "KAFKA_BOOTSTRAP_SERVERS", topic.bootstrapServers(),
                "STOCK_TOPIC", topic.name()));
        Process process = builder.start();
        var client = HttpClient.newHttpClient();
        var ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health/readiness")).build();
        long deadline = System.nanoTime() + READY_DEADLINE.toNanos();
        while (true) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException("relay did not become ready; see " + options.relayLog);
            }
            try {
                if (client.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return process;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    private static String readySettingsLine(Path relayLog) throws IOException {
        String marker = "outbox-relay ready: ";
        try (Stream<String> lines = Files.lines(relayLog)) {
            return lines.filter(line -> line.contains(marker)).findFirst()
                    .map(line -> line.substring(line.indexOf(marker) + marker.length())).orElse("");
        }
    }

    private record Options(int rows, int warmupRows, int rate, int durationSeconds, int partitions,
                           String relayHeap, Path out, Path relayLog) {

        static Options parse(String[] args) {
            Map<String, String> values = new HashMap<>(Map.of(
                    "rows", "100000", "warmup-rows", "20000", "rate", "1000", "duration", "30",
                    "partitions", "3", "relay-heap", "512m",
                    "out", "results/relay-bench.csv"));
            for (int i = 0; i < args.length; i++) {
                String name = args[i].replaceFirst("^--", "");
                if (!values.containsKey(name) || i + 1 >= args.length) {
                    throw new IllegalArgumentException("usage: [--rows N] [--warmup-rows N] [--rate ROWS_PER_S] "
                            + "[--duration S] [--partitions N] [--relay-heap 512m] [--out FILE]; got " + args[i]);
                }
                values.put(name, args[++i]);
            }
            Path out = Path.of(values.get("out"));
            return new Options(Integer.parseInt(values.get("rows")), Integer.parseInt(values.get("warmup-rows")),
                    Integer.parseInt(values.get("rate")), Integer.parseInt(values.get("duration")),
                    Integer.parseInt(values.get("partitions")), values.get("relay-heap"), out,
                    out.resolveSibling(out.getFileName().toString().replaceFirst("\\.csv$", "") + "-relay.log"));
        }
    }
}
