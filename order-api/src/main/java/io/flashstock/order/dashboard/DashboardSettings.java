package io.flashstock.order.dashboard;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.net.URI;
import java.time.Duration;

/**
 * The live dashboard ({@code /dashboard}, data from {@code GET /admin/dashboard/snapshot}).
 *
 * @param outboxRelayUrl base URL of outbox-relay, whose Prometheus text gives its rates, batch sizes, CPU and memory
 *                       (stock-consumer's is {@code flashstock.reconciliation.stock-consumer-url})
 * @param refreshEvery how long one snapshot of the rates and processes is shared by every viewer
 * @param reconcileEvery the shortest wait between two reconciliation reports for the page and the
 *                       {@code flashstock.reconciliation.*} gauges; a report that took longer than a quarter of it
 *                       waits four times its own duration instead, so it never takes more than a fifth of the time
 * @param peerTimeout how long a scrape of another process may take before the page shows it unreachable
 */
@ConfigurationProperties("flashstock.dashboard")
public record DashboardSettings(
        @DefaultValue("http://127.0.0.1:8081") URI outboxRelayUrl,
        @DefaultValue("1s") Duration refreshEvery,
        @DefaultValue("1s") Duration reconcileEvery,
        @DefaultValue("500ms") Duration peerTimeout) {
}
