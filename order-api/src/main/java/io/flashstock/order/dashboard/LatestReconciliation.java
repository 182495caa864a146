package io.flashstock.order.dashboard;

import io.flashstock.order.reconciliation.Reconciliation;
import io.flashstock.order.reconciliation.ReconciliationReport;
import org.springframework.beans.factory.DisposableBean;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * The latest reconciliation report of every item, made in the background and only while someone asks (a viewer
 * of the page, or a Prometheus scrape of the gauges). A report reads every order of each item's generation, which
 * was measured at 2 s for 490,000 orders, so it is never made on the caller's thread, one at a time, and after
 * each one the next waits {@code reconcileEvery} or four times the last one's duration, whichever is longer.
 */
class LatestReconciliation implements DisposableBean {

    private static final int COST_FACTOR = 4;

    private final Reconciliation reconciliation;
    private final Duration every;
    private final Clock clock;
    private final Consumer<ReconciliationReport> onReport;
    private final ExecutorService runner = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "dashboard-reconciliation");
        thread.setDaemon(true);
        return thread;
    });

    private volatile Result latest;
    private boolean running;
    private Instant nextDue = Instant.MIN;

    LatestReconciliation(Reconciliation reconciliation, Duration every, Clock clock,
                         Consumer<ReconciliationReport> onReport) {
        this.reconciliation = reconciliation;
        this.every = every;
        this.clock = clock;
        this.onReport = onReport;
    }

    /** The last report made, if any; starts the next one when it is due. */
    Optional<Result> latest() {
        refreshIfDue();
        return Optional.ofNullable(latest);
    }

    private synchronized void refreshIfDue() {
        if (!running && !clock.instant().isBefore(nextDue)) {
            running = true;
            runner.execute(this::refresh);
        }
    }

    private void refresh() {
        Instant started = clock.instant();
        Result result;
        try {
            ReconciliationReport report = reconciliation.report(Optional.empty());
            onReport.accept(report);
            result = new Result(report, null, Duration.between(started, clock.instant()));
        } catch (RuntimeException e) {
            result = new Result(null, "the reconciliation failed: " + e.getMessage(),
                    Duration.between(started, clock.instant()));
        }
        latest = result;
        Duration took = result.took();
        synchronized (this) {
            Duration wait = took.multipliedBy(COST_FACTOR).compareTo(every) > 0 ? took.multipliedBy(COST_FACTOR) : every;
            nextDue = clock.instant().plus(wait);
            running = false;
        }
    }

    @Override
    public void destroy() {
        runner.shutdownNow();
    }

    /** A report, or why there is none this time; {@code took} is what it cost. */
    record Result(ReconciliationReport report, String problem, Duration took) {
    }
}
