package io.flashstock.order.dashboard;

import io.flashstock.order.reconciliation.ReconciliationReport.Invariant;
import io.flashstock.order.reconciliation.ReconciliationReport.ItemReconciliation;
import io.flashstock.order.stock.Gate;

import java.util.List;
import java.util.Set;

/**
 * One item's line on the page. {@code remaining} is its gate's counter (Redis, or a DB-lock item's row);
 * {@code drift} that counter minus baseline − Σ orders. {@code trouble} lists the invariants that do not hold
 * for a reason other than events still on their way, {@code inFlight} those that only wait for the pipeline.
 */
record ItemRow(String itemCode, String gate, long baseline, Long remaining, long orders, long unitsOrdered,
               long unsent, long sent, long dead, Long stockQuantity, long anomalies, long drift, int partition,
               long partitionLag, List<String> trouble, List<String> inFlight) {

    /** What lags behind while orders are still travelling the pipeline; wrong only once it is drained. */
    private static final Set<String> PIPELINE = Set.of("outbox-matches-orders", "pipeline-drained",
            "stock-db-matches-orders", "events-applied-match-orders");
    private static final Set<String> GATE = Set.of("redis-matches-orders", "db-gate-matches-orders");

    static ItemRow of(ItemReconciliation item, boolean drained) {
        List<Invariant> failing = item.invariants().stream().filter(i -> !i.holds()).toList();
        return new ItemRow(item.itemCode(), item.gate().code(), item.baseline(),
                item.gate() == Gate.DB_LOCK ? item.dbRemaining() : item.redisRemaining(),
                item.orders().count(), item.orders().quantity(), item.outbox().unsent(), item.outbox().sent(),
                item.outbox().dead(), item.stock() == null ? null : item.stock().quantity(),
                item.stock() == null ? 0 : item.stock().anomalies(), drift(item), item.partition(),
                item.partitionLag(),
                failing.stream().filter(i -> drained || !travelling(i)).map(ItemRow::describe).toList(),
                failing.stream().filter(i -> !drained && travelling(i)).map(Invariant::name).toList());
    }

    /**
     * Whether a difference may only be orders on their way: the pipeline's, and a gate counter lower than
     * baseline − Σ orders, since the report reads the counter after the orders, and orders taken in between are
     * not in its sum yet (during a run at 1,000/s, hundreds). Once drained, neither is on its way any more.
     */
    private static boolean travelling(Invariant invariant) {
        return PIPELINE.contains(invariant.name()) || GATE.contains(invariant.name()) && invariant.difference() < 0;
    }

    static boolean exact(ItemReconciliation item) {
        return item.invariants().stream().allMatch(Invariant::holds);
    }

    /** The gate counter's difference from baseline − Σ orders, 0 while it matches. */
    static long drift(ItemReconciliation item) {
        return item.invariants().stream().filter(i -> GATE.contains(i.name()) && !i.holds())
                .mapToLong(Invariant::difference).sum();
    }

    private static String describe(Invariant invariant) {
        return invariant.name() + ": " + invariant.detail();
    }
}
