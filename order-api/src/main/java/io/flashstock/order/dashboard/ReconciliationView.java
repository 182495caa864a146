package io.flashstock.order.dashboard;

import io.flashstock.order.dashboard.LatestReconciliation.Result;
import io.flashstock.order.reconciliation.ReconciliationReport;
import io.flashstock.order.reconciliation.ReconciliationReport.KafkaPosition;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The reconciliation part of the page. {@code verdict}: {@code exact}; {@code in-flight} while the only
 * differences are events on their way; {@code not-exact} otherwise; {@code pending} before the first report,
 * {@code unavailable} when it failed. Items in trouble come first, and at most {@link #MAX_ITEMS} are listed.
 */
record ReconciliationView(String verdict, String problem, Instant generatedAt, long tookMillis, boolean drained,
                          KafkaPosition kafka, List<ItemRow> items, int itemsNotShown) {

    static final int MAX_ITEMS = 100;

    private static final Comparator<ItemRow> TROUBLE_FIRST = Comparator
            .comparing((ItemRow row) -> row.trouble().isEmpty())
            .thenComparing(row -> row.inFlight().isEmpty());

    static ReconciliationView of(Optional<Result> latest) {
        if (latest.isEmpty()) {
            return new ReconciliationView("pending", null, null, 0, false, null, List.of(), 0);
        }
        Result result = latest.get();
        ReconciliationReport report = result.report();
        if (report == null) {
            return new ReconciliationView("unavailable", result.problem(), null, result.took().toMillis(), false,
                    null, List.of(), 0);
        }
        List<ItemRow> rows = report.items().stream().map(i -> ItemRow.of(i, report.drained()))
                .sorted(TROUBLE_FIRST).toList();
        String verdict = report.exact() ? "exact"
                : rows.stream().allMatch(r -> r.trouble().isEmpty()) ? "in-flight" : "not-exact";
        return new ReconciliationView(verdict, null, report.generatedAt(), result.took().toMillis(), report.drained(),
                report.kafka(), rows.subList(0, Math.min(MAX_ITEMS, rows.size())),
                Math.max(0, rows.size() - MAX_ITEMS));
    }
}
