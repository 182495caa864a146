package io.flashstock.order.dashboard;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One snapshot of the engine per {@code refreshEvery}, taken on a thread of its own whether anyone looks or not, so
 * that the page opened mid-run draws the whole run (unless not {@link #start() started}: then when a viewer asks and
 * the latest is older than {@code refreshEvery}): each is shared by every viewer and its series go into the
 * {@link SnapshotHistory}. Rates are measured against the previous sample, latency percentiles against the oldest
 * within {@link #LATENCY_WINDOW}. The reconciliation is not part of it: that report is made only for a viewer.
 */
class DashboardSnapshots implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(DashboardSnapshots.class);

    /** Latency percentiles cover this much, so a quiet second does not blank them. */
    static final Duration LATENCY_WINDOW = Duration.ofSeconds(10);

    private final ProcessScrapes scrapes;
    private final RedisStats redis;
    private final ProcessCpu processCpu;
    private final ConsumerLag consumerLag;
    private final LatestReconciliation reconciliation;
    private final SnapshotHistory history;
    private final Duration every;
    private final Clock clock;
    private final Deque<EngineSample> recent = new ArrayDeque<>();
    /** The CPU seconds last read of the processes that are not services, for Prometheus (Grafana's CPU panel). */
    private final Map<String, Double> cpuSeconds = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "dashboard-sampler");
        thread.setDaemon(true);
        return thread;
    });

    private volatile Latest latest;
    private volatile boolean sampling;

    DashboardSnapshots(ProcessScrapes scrapes, RedisStats redis, ProcessCpu processCpu, ConsumerLag consumerLag,
                       LatestReconciliation reconciliation, SnapshotHistory history, Duration every, Clock clock) {
        this.scrapes = scrapes;
        this.redis = redis;
        this.processCpu = processCpu;
        this.consumerLag = consumerLag;
        this.reconciliation = reconciliation;
        this.history = history;
        this.every = every;
        this.clock = clock;
    }

    /** Starts taking a snapshot every {@code every}. */
    void start() {
        sampling = true;
        sampler.scheduleAtFixedRate(() -> {
            try {
                sample();
            } catch (RuntimeException e) {
                // a task that throws is never run again: log it, and the next period tries anew
                log.warn("the dashboard's snapshot failed", e);
            }
        }, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Registers {@code flashstock.stock.consumer.lag}, the lag the page charts, read once a second, and
     * {@code flashstock.process.cpu} (seconds, a counter per process) of Redis and of the processes read
     * by pid file or agent, so that Grafana charts the same six processes as the page.
     */
    void registerMeters(MeterRegistry registry) {
        Gauge.builder("flashstock.stock.consumer.lag", this, s -> {
            Latest now = s.latest;
            return now == null || now.engine().consumerLag() == null ? Double.NaN : now.engine().consumerLag();
        }).description("Records of the stock topic stock-consumer's group has not committed, as the dashboard read them")
                .baseUnit("records").register(registry);
        for (String process : processes()) {
            FunctionCounter.builder("flashstock.process.cpu", cpuSeconds, m -> m.getOrDefault(process, Double.NaN))
                    .description("CPU seconds used by a process the engine runs on, as order-api's dashboard read them")
                    .baseUnit("seconds").tag("process", process).register(registry);
        }
    }

    private List<String> processes() {
        return Stream.concat(Stream.of("redis"), processCpu.processes().stream()).toList();
    }

    /** Takes one snapshot of the engine and adds its series to the history. */
    synchronized void sample() {
        Instant now = clock.instant();
        EngineSample sample = new EngineSample(now, scrapes.scrapeAll(), redis.read(), processCpu.readAll(),
                consumerLag.read());
        while (recent.size() > 1 && Duration.between(recent.peekFirst().at(), now).compareTo(LATENCY_WINDOW) > 0) {
            recent.removeFirst();
        }
        EngineView engine = recent.isEmpty() ? EngineRates.between(sample, sample, sample)
                : EngineRates.between(recent.peekFirst(), recent.peekLast(), sample);
        recent.addLast(sample);
        remember(sample);
        float[] values = DashboardCharts.values(engine);
        history.add(now.toEpochMilli(), values);
        latest = new Latest(now, engine, values);
    }

    /** Rechecked under the lock: viewers asking at once share one snapshot. */
    private synchronized Latest sampleUnlessFresh() {
        Latest now = latest;
        if (now == null || !now.at().plus(every).isAfter(clock.instant())) {
            sample();
        }
        return latest;
    }

    private void remember(EngineSample sample) {
        if (sample.redis().cpuSeconds() != null) {
            cpuSeconds.put("redis", sample.redis().cpuSeconds());
        }
        sample.cpu().forEach((name, reading) -> {
            if (reading.cpuSeconds() != null) {
                cpuSeconds.put(name, reading.cpuSeconds());
            }
        });
    }

    /**
     * The latest snapshot with the reconciliation as it stands; the first call may take the first snapshot, and every
     * call when not sampling in the background one as old as {@code every}.
     */
    DashboardSnapshot current() {
        Latest now = latest;
        if (now == null || !sampling && !now.at().plus(every).isAfter(clock.instant())) {
            now = sampleUnlessFresh();
        }
        return new DashboardSnapshot(now.at(), now.engine(), new DashboardSnapshot.Point(now.at().toEpochMilli(),
                SnapshotHistory.boxed(now.values())), ReconciliationView.of(reconciliation.latest()));
    }

    SnapshotHistory history() {
        return history;
    }

    @Override
    public void destroy() {
        sampler.shutdownNow();
    }

    private record Latest(Instant at, EngineView engine, float[] values) {
    }
}
