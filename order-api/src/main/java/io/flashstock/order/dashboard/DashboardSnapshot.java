package io.flashstock.order.dashboard;

import java.time.Instant;
import java.util.List;

/**
 * What {@code GET /admin/dashboard/snapshot} answers: the engine's rates, the reconciliation's view, and the
 * snapshot's point of the history ({@link DashboardCharts#SERIES} order), which the page appends to its charts.
 */
record DashboardSnapshot(Instant generatedAt, EngineView engine, Point point, ReconciliationView reconciliation) {

    /** One point of the history: epoch milliseconds, and a value per series (null: not measured). */
    record Point(long at, List<Float> values) {
    }
}
