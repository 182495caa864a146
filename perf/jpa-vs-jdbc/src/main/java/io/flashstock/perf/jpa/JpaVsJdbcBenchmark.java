package io.flashstock.perf.jpa;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes orders through each {@link OrderWrites} variant on one thread, a transaction per batch, for each batch
 * size: a warm-up, then repetitions of a fixed length with the variants in turn, each one a CSV row of orders/s
 * and its costs per order. The server's statement counters show what each variant sent.
 */
@SpringBootApplication
@EnableJpaRepositories(considerNestedRepositories = true)
@EnableConfigurationProperties(BenchSettings.class)
public class JpaVsJdbcBenchmark implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(JpaVsJdbcBenchmark.class);
    private static final String HEADER = "variant,batch,rep,orders,transactions,seconds,orders_per_s,"
            + "process_cpu_us_per_order,thread_cpu_us_per_order,db_cpu_us_per_order,alloc_bytes_per_order,gc_ms,"
            + "inserts_per_tx,statements_per_tx\n";

    private final List<OrderWrites> variants;
    private final BenchSettings settings;
    private final JdbcTemplate jdbc;
    private final CpuMeter meter;
    private final TimeBasedEpochGenerator uuids = Generators.timeBasedEpochGenerator();
    private long sequence;

    JpaVsJdbcBenchmark(List<OrderWrites> variants, BenchSettings settings, DataSource dataSource) {
        this.variants = variants.stream().sorted(Comparator.comparing(OrderWrites::variant)).toList();
        this.settings = settings;
        this.jdbc = new JdbcTemplate(dataSource);
        this.meter = new CpuMeter(settings.dbPid());
    }

    public static void main(String[] args) {
        System.exit(SpringApplication.exit(SpringApplication.run(JpaVsJdbcBenchmark.class, args)));
    }

    @Override
    public void run(ApplicationArguments args) throws IOException {
        log.info("variants {}, batches {}, {} reps of {} s, warm-up {} s per variant, server {}",
                variants.stream().map(OrderWrites::variant).toList(), settings.batches(), settings.reps(),
                settings.repSeconds(), settings.warmupSeconds(),
                jdbc.queryForObject("SELECT CONCAT(VERSION(), ' innodb_flush_log_at_trx_commit=', "
                        + "@@innodb_flush_log_at_trx_commit)", String.class));
        for (OrderWrites variant : variants) {
            double slice = settings.warmupSeconds() / settings.batches().size();
            for (int batch : settings.batches()) {
                runFor(variant, batch, slice);
            }
        }
        if (!Files.exists(settings.out())) {
            Files.writeString(settings.out(), HEADER);
        }
        long written = 0;
        Map<String, List<Row>> rows = new TreeMap<>();
        for (int batch : settings.batches()) {
            for (int rep = 1; rep <= settings.reps(); rep++) {
                for (int i = 0; i < variants.size(); i++) {
                    OrderWrites variant = variants.get((i + rep) % variants.size());
                    Row row = measure(variant, batch, rep);
                    written += row.orders;
                    Files.writeString(settings.out(), row.csv(), StandardOpenOption.APPEND);
                    rows.computeIfAbsent(String.format(Locale.ROOT, "%3d %s", batch, variant.variant()),
                            k -> new ArrayList<>()).add(row);
                }
            }
        }
        rows.forEach((key, list) -> log.info("batch {}: median of {}: {} orders/s, JVM {} µs/order, server {} µs/order, "
                        + "{} B/order, {} inserts and {} statements per transaction", key, list.size(),
                median(list, r -> r.ordersPerSecond()), median(list, r -> r.processCpuMicros()),
                median(list, r -> r.dbCpuMicros()), median(list, r -> r.allocatedBytes()),
                median(list, r -> r.insertsPerTx()), median(list, r -> r.statementsPerTx())));
        Long orders = jdbc.queryForObject("SELECT COUNT(*) FROM purchase_order", Long.class);
        Long outbox = jdbc.queryForObject("SELECT COUNT(*) FROM outbox_event", Long.class);
        log.info("rows: purchase_order {}, outbox_event {}; measured orders {} (plus the warm-up's)", orders, outbox,
                written);
        if (!orders.equals(outbox)) {
            throw new IllegalStateException("purchase_order and outbox_event differ: " + orders + " vs " + outbox);
        }
    }

    private Row measure(OrderWrites variant, int batch, int rep) {
        long inserts = status("Com_insert");
        long questions = status("Questions");
        CpuMeter.Reading before = meter.read();
        long[] done = runFor(variant, batch, settings.repSeconds());
        CpuMeter.Reading after = meter.read();
        // the status reads are statements of their own: the second one and the first one's own count
        long statements = status("Questions") - questions - 1;
        long insertStatements = status("Com_insert") - inserts;
        return new Row(variant.variant(), batch, rep, done[0], done[1], before, after, insertStatements, statements);
    }

    /** Writes batches of {@code batch} orders until {@code seconds} passed; returns orders and transactions. */
    private long[] runFor(OrderWrites variant, int batch, double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long orders = 0;
        long transactions = 0;
        do {
            List<BenchOrder> orderBatch = new ArrayList<>(batch);
            for (int i = 0; i < batch; i++) {
                orderBatch.add(nextOrder());
            }
            variant.write(orderBatch);
            orders += batch;
            transactions++;
        } while (System.nanoTime() < end);
        return new long[]{orders, transactions};
    }

    /** An order as the seed scenario places them: one of six items, one unit, with an Idempotency-Key. */
    private BenchOrder nextOrder() {
        long n = sequence++;
        return new BenchOrder(uuids.generate().toString(), uuids.generate(), "item-" + (n % 6), 1,
                "user-" + (n % 100_000), 1, 1_000_000_000L - n, uuids.generate().toString(), Instant.now());
    }

    private long status(String name) {
        return jdbc.queryForObject("SHOW GLOBAL STATUS LIKE ?", (rs, i) -> rs.getLong(2), name);
    }

    private static String median(List<Row> rows, java.util.function.ToDoubleFunction<Row> value) {
        double[] sorted = rows.stream().mapToDouble(value).sorted().toArray();
        int n = sorted.length;
        double m = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        return String.format(Locale.ROOT, "%.1f", m);
    }

    private record Row(String variant, int batch, int rep, long orders, long transactions, CpuMeter.Reading before,
                       CpuMeter.Reading after, long insertStatements, long statements) {

        double seconds() {
            return (after.wallNanos() - before.wallNanos()) / 1e9;
        }

        double ordersPerSecond() {
            return orders / seconds();
        }

        double processCpuMicros() {
            return (after.processCpuNanos() - before.processCpuNanos()) / 1e3 / orders;
        }

        double threadCpuMicros() {
            return (after.threadCpuNanos() - before.threadCpuNanos()) / 1e3 / orders;
        }

        double dbCpuMicros() {
            return (after.dbCpuNanos() - before.dbCpuNanos()) / 1e3 / orders;
        }

        double allocatedBytes() {
            return (double) (after.threadAllocatedBytes() - before.threadAllocatedBytes()) / orders;
        }

        double insertsPerTx() {
            return (double) insertStatements / transactions;
        }

        double statementsPerTx() {
            return (double) statements / transactions;
        }

        String csv() {
            return String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%.3f,%.1f,%.1f,%.1f,%.1f,%.0f,%d,%.2f,%.2f%n", variant,
                    batch, rep, orders, transactions, seconds(), ordersPerSecond(), processCpuMicros(),
                    threadCpuMicros(), dbCpuMicros(), allocatedBytes(), after.gcMillis() - before.gcMillis(),
                    insertsPerTx(), statementsPerTx());
        }
    }
}
