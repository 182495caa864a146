package io.flashstock.order.dashboard;

import java.time.Instant;

/** What {@code GET /admin/dashboard/snapshot} answers: the engine's rates and the reconciliation's view. */
record DashboardSnapshot(Instant generatedAt, EngineView engine, ReconciliationView reconciliation) {
}
