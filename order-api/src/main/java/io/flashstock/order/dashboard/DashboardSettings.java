package io.flashstock.order.dashboard;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The live dashboard ({@code /dashboard}, data from {@code GET /admin/dashboard/snapshot}).
 *
 * @param outboxRelayUrl base URL of outbox-relay, whose Prometheus text gives its rates, batch sizes, CPU and memory
 *                       (stock-consumer's is {@code flashstock.reconciliation.stock-consumer-url})
 * @param refreshEvery how often order-api takes a snapshot of the rates and processes, shared by every viewer and
 *                     kept in the history
 * @param history how much of the snapshots' series order-api keeps, in a ring of {@code history / refreshEvery}
 *                points allocated at start, so that the page draws it on its first load
 * @param processCpu where the CPU of processes that are not its services is read, by the name the page gives them
 *                   ({@code mariadb}, {@code kafka}): {@code file:} a pid file on this host, or an {@code http:}
 *                   address of Prometheus text whose {@code process_cpu_seconds_total} is that process's; several
 *                   are summed (a Kafka cluster's brokers); in the environment
 *                   {@code FLASHSTOCK_DASHBOARD_PROCESSCPU_MARIADB=file:/…/mariadb.pid}. Redis's comes from {@code INFO cpu}
 * @param reconcileEvery the shortest wait between two reconciliation reports for the page and the
 *                       {@code flashstock.reconciliation.*} gauges; a report that took longer than a quarter of it
 *                       waits four times its own duration instead, so it never takes more than a fifth of the time
 * @param peerTimeout how long a scrape of another process may take before the page shows it unreachable
 * @param backgroundSampling take a snapshot every {@code refreshEvery} on a thread of its own whether anyone looks or
 *                           not, so that the page opened mid-run draws the whole run; false: only when the page asks
 *                           (at most one per {@code refreshEvery}), and the history and the Prometheus figures of the
 *                           consumer lag and the other processes' CPU hold only those
 */
@ConfigurationProperties("flashstock.dashboard")
public record DashboardSettings(
        @DefaultValue("http://127.0.0.1:8081") URI outboxRelayUrl,
        @DefaultValue("1s") Duration refreshEvery,
        @DefaultValue("1s") Duration reconcileEvery,
        @DefaultValue("500ms") Duration peerTimeout,
        @DefaultValue("15m") Duration history,
        @DefaultValue Map<String, List<URI>> processCpu,
        @DefaultValue("true") boolean backgroundSampling) {

    /** The number of points the history holds. */
    int historyPoints() {
        return (int) Math.max(1, history.toMillis() / Math.max(1, refreshEvery.toMillis()));
    }
}
