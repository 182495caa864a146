package io.flashstock.warmup;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Places real orders on this service's own endpoint before it reports ready.
 * <p>
 * Spring Boot runs {@link ApplicationRunner}s after the web server has started and before it publishes
 * {@code ReadinessState.ACCEPTING_TRAFFIC}, so the readiness probe refuses traffic for exactly as long as
 * this runs, while liveness is already correct. Only 200 answers count: a 400 would warm the error path,
 * not the order path.
 */
public class JitWarmup implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(JitWarmup.class);

    private final WarmupProperties properties;
    private final WarmupFixture fixture;
    private final WarmupTicket ticket;
    private final WebServerApplicationContext context;
    private final MeterRegistry meters;
    private final WarmupExit exit;
    private volatile WarmupReport lastReport;

    public JitWarmup(WarmupProperties properties, WarmupFixture fixture, WarmupTicket ticket,
                     WebServerApplicationContext context, MeterRegistry meters, WarmupExit exit) {
        this.properties = properties;
        this.fixture = fixture;
        this.ticket = ticket;
        this.context = context;
        this.meters = meters;
        this.exit = exit;
    }

    @Override
    public void run(ApplicationArguments args) {
        if (!properties.enabled() || properties.requests() <= 0) {
            log.info("JIT warm-up off (flashstock.warmup.enabled={}, requests={})", properties.enabled(),
                    properties.requests());
            return;
        }
        lastReport = warmUp();
        registerMetrics(lastReport);
        log.info("JIT warm-up: {} of {} orders answered 200 in {} ms ({} other answers, {}); first request {} ms, "
                        + "last {} ms", lastReport.succeeded(), properties.requests(), lastReport.duration().toMillis(),
                lastReport.failed(), lastReport.deadlineReached() ? "deadline reached" : "completed",
                micros(lastReport.firstLatency()), micros(lastReport.lastLatency()));
        if (properties.exitAfter()) {
            log.info("JIT warm-up done; exiting (flashstock.warmup.exit-after: an AOT cache's training run)");
            exit.exit(lastReport);
        }
    }

    /** What the last warm-up did, or null before it ran (or when it is off). */
    public WarmupReport lastReport() {
        return lastReport;
    }

    private WarmupReport warmUp() {
        long start = System.nanoTime();
        long deadline = start + properties.deadline().toNanos();
        var succeeded = new AtomicInteger();
        // a worker claims a slot before sending and gives it back on failure, so exactly `requests` succeed
        var unclaimed = new AtomicInteger(properties.requests());
        var failed = new AtomicInteger();
        var sequence = new AtomicInteger();
        var first = new AtomicLong(-1);
        var last = new AtomicLong(-1);
        URI uri = URI.create("http://127.0.0.1:" + context.getWebServer().getPort() + properties.path());
        HttpClient client = HttpClient.newBuilder().connectTimeout(properties.requestTimeout()).build();
        ExecutorService workers = Executors.newFixedThreadPool(Math.max(1, properties.concurrency()));
        try {
            // twice the requested count, so failed answers cannot exhaust the warm-up item's stock
            fixture.prepare(properties.itemCode(), 2L * properties.requests());
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < Math.max(1, properties.concurrency()); i++) {
                running.add(workers.submit(() -> {
                    while (System.nanoTime() < deadline && unclaimed.getAndDecrement() > 0) {
                        int n = sequence.incrementAndGet();
                        long latency = placeOrder(client, uri, n);
                        if (latency >= 0) {
                            first.compareAndSet(-1, latency);
                            last.set(latency);
                            succeeded.incrementAndGet();
                        } else {
                            unclaimed.incrementAndGet();
                            if (failed.incrementAndGet() == 1) {
                                log.warn("JIT warm-up: an order was not answered 200; it goes on until its deadline");
                            }
                        }
                    }
                }));
            }
            awaitAll(running, deadline);
        } catch (RuntimeException e) {
            log.warn("JIT warm-up failed: {}; the service starts without it", e.toString());
        } finally {
            workers.shutdownNow();
            cleanUp();
        }
        return new WarmupReport(succeeded.get(), failed.get(), Duration.ofNanos(System.nanoTime() - start),
                Duration.ofNanos(Math.max(0, first.get())), Duration.ofNanos(Math.max(0, last.get())),
                System.nanoTime() >= deadline && succeeded.get() < properties.requests());
    }

    /** @return the latency in nanoseconds of a 200 answer, or -1 for anything else */
    private long placeOrder(HttpClient client, URI uri, int n) {
        String body = "{\"itemCode\":\"" + properties.itemCode() + "\",\"userId\":\"warmup-" + n + "\",\"quantity\":1}";
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(properties.requestTimeout())
                .header("Content-Type", "application/json")
                .header(WarmupTicket.HEADER, ticket.value())
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        long start = System.nanoTime();
        try {
            int status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            return status == 200 ? System.nanoTime() - start : -1;
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static void awaitAll(List<Future<?>> running, long deadline) {
        for (Future<?> f : running) {
            try {
                f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                log.warn("JIT warm-up reached its deadline");
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (java.util.concurrent.ExecutionException e) {
                log.warn("JIT warm-up worker failed: {}", e.getCause().toString());
            }
        }
    }

    private void cleanUp() {
        try {
            long removed = fixture.cleanUp(properties.itemCode());
            log.debug("JIT warm-up removed {} warm-up orders", removed);
        } catch (RuntimeException e) {
            log.warn("JIT warm-up could not remove its orders of item {}: {}", properties.itemCode(), e.toString());
        }
    }

    private void registerMetrics(WarmupReport report) {
        Gauge.builder("flashstock.warmup.duration", report, r -> r.duration().toNanos() / 1e9)
                .baseUnit("seconds").description("How long the JIT warm-up took").register(meters);
        Gauge.builder("flashstock.warmup.requests", report, WarmupReport::succeeded)
                .description("Warm-up orders answered 200").register(meters);
        Gauge.builder("flashstock.warmup.first.request", report, r -> r.firstLatency().toNanos() / 1e9)
                .baseUnit("seconds").description("Latency of the first warm-up order").register(meters);
        Gauge.builder("flashstock.warmup.last.request", report, r -> r.lastLatency().toNanos() / 1e9)
                .baseUnit("seconds").description("Latency of the last warm-up order").register(meters);
    }

    private static String micros(Duration d) {
        return String.format("%.2f", d.toNanos() / 1e6);
    }
}
