package io.flashstock.order.reconciliation;

import io.flashstock.order.reconciliation.ReconciliationReport.Invariant;
import io.flashstock.order.reconciliation.ReconciliationReport.ItemReconciliation;
import io.flashstock.order.reconciliation.ReconciliationReport.KafkaPosition;
import io.flashstock.order.reconciliation.ReconciliationReport.OutboxCounts;
import io.flashstock.order.reconciliation.ReconciliationReport.PartitionPosition;
import io.flashstock.order.reconciliation.ReconciliationReport.Totals;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.Baseline;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.ItemRead;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.OrderTotals;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.StockLedger;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.HeldUnits;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The reconciliation's invariants and what they tell the operator, over what was read ({@link ReconciliationSnapshot}):
 * no reads here, so each rule can be tested on its own.
 */
final class ReconciliationRules {

    static final String REDIS_MATCHES_ORDERS = "redis-matches-orders";
    static final String DB_GATE_MATCHES_ORDERS = "db-gate-matches-orders";
    static final String OUTBOX_MATCHES_ORDERS = "outbox-matches-orders";
    static final String PIPELINE_DRAINED = "pipeline-drained";
    static final String STOCK_DB_MATCHES_ORDERS = "stock-db-matches-orders";
    static final String EVENTS_APPLIED_MATCH_ORDERS = "events-applied-match-orders";
    static final String NO_ANOMALIES = "no-anomalies";
    static final String NOT_OVERSOLD = "not-oversold";

    private ReconciliationRules() {
    }

    static ReconciliationReport judge(ReconciliationSnapshot read, Instant generatedAt) {
        KafkaPosition position = read.position();
        boolean drained = read.unsentEverywhere() == 0 && position.lag() == 0;
        List<ItemReconciliation> items = new ArrayList<>();
        for (ItemRead item : read.items()) {
            items.add(reconcile(item, position, read.ledger()));
        }
        boolean exact = items.stream().flatMap(i -> i.invariants().stream()).allMatch(Invariant::holds);
        return new ReconciliationReport(generatedAt, exact, drained, position, items, read.ordersRead());
    }

    private static ItemReconciliation reconcile(ItemRead item, KafkaPosition position, StockLedger ledger) {
        Baseline b = item.baseline();
        OrderTotals t = item.totals();
        StockLedgerEntry stock = ledger.entries().get(b.itemCode());
        long expectedRemaining = b.baseline() - t.quantity();
        Long redisRemaining = item.redisRemaining();
        int partition = position.partitions().isEmpty() ? 0
                : KafkaPositions.partitionOf(b.itemCode(), position.partitions().size());
        long partitionLag = position.partitions().stream().filter(p -> p.partition() == partition)
                .mapToLong(PartitionPosition::lag).sum();
        long unsent = t.unsent();
        long dead = t.dead();

        Long stockQuantity = stock == null || stock.generation() != b.generation() ? null : stock.quantity();
        long retired = t.count() - t.withOutboxRow();
        long provenRetired = provenRetired(retired, t, stockQuantity == null ? 0 : stock.eventsApplied());

        // a token item's unused tokens hold units that are in no order yet: Redis = baseline − Σ orders − Σ held
        HeldUnits.Outstanding tokens = item.tokens();
        List<Invariant> invariants = new ArrayList<>();
        invariants.add(b.gate() == Gate.DB_LOCK ? dbGateInvariant(b, expectedRemaining)
                : redisInvariant(expectedRemaining - (tokens == null ? 0 : tokens.units()), redisRemaining,
                item.inDoubtUnits(), tokens));
        invariants.add(Invariant.of(OUTBOX_MATCHES_ORDERS, t.count(), t.withOutboxRow() + provenRetired,
                (retired - provenRetired) + " orders have no outbox row: never written, or deleted once sent but "
                        + "not yet applied in the stock database (" + provenRetired + " more were deleted once applied)"));
        invariants.add(Invariant.of(PIPELINE_DRAINED, 0, unsent + partitionLag,
                unsent + " outbox rows unsent, " + partitionLag + " records not yet consumed on partition " + partition));
        String stockDetail = ledger.problem() != null ? ledger.problem()
                : stock == null ? "stock database has no row for the item"
                : stock.generation() != b.generation()
                ? "stock database is at generation " + stock.generation() + ", orders at " + b.generation()
                : dead > 0 ? dead + " outbox rows are DEAD and never reached Kafka"
                : "stock database differs from baseline − Σ orders";
        invariants.add(Invariant.of(STOCK_DB_MATCHES_ORDERS, expectedRemaining, stockQuantity, stockDetail));
        invariants.add(Invariant.of(EVENTS_APPLIED_MATCH_ORDERS, t.count(),
                stockQuantity == null ? null : stock.eventsApplied(), stockDetail));
        invariants.add(Invariant.of(NO_ANOMALIES, 0, stock == null ? 0L : stock.anomalies(),
                "stock-consumer recorded deductions it could not apply (GET /stock/anomalies)"));
        // last, so the invariants clients read by position keep theirs
        invariants.add(Invariant.atMost(NOT_OVERSOLD, b.baseline(), t.quantity(),
                "oversold by " + (t.quantity() - b.baseline()) + " units: the orders of generation " + b.generation()
                        + " commit " + t.quantity() + " units of a baseline of " + b.baseline()));

        return new ItemReconciliation(b.itemCode(), b.gate(), b.generation(), b.baseline(), b.perUserLimit(),
                redisRemaining, b.dbRemaining(), expectedRemaining, new Totals(t.count(), t.quantity()),
                new OutboxCounts(t.withOutboxRow(), t.quantityWithOutboxRow(), unsent,
                        t.sent(), dead, retired),
                partition, partitionLag, stock, invariants, item.waitingRoom(), tokens);
    }

    /**
     * Orders whose outbox row is gone that the stock database proves published. outbox-relay deletes a row only
     * once Kafka acknowledged it and its retention passed (SentEventRetention), so such an order's event is
     * expected among those the stock database applied for the generation. Of those, as many as there are rows
     * still present that may have reached it (sent, dead, or claimed and not yet marked sent) are set aside; the
     * rest can only be the deleted rows' events. Exact once the item's events are all consumed; while some are
     * in flight it proves fewer, never more.
     */
    private static long provenRetired(long retired, OrderTotals t, long eventsApplied) {
        long appliedWithoutRow = eventsApplied - t.sent() - t.dead() - t.claimedUnsent();
        return Math.max(0, Math.min(retired, appliedWithoutRow));
    }

    private static Invariant redisInvariant(long expectedRemaining, Long redisRemaining, long inDoubtUnits,
                                            HeldUnits.Outstanding tokens) {
        String detail;
        if (expectedRemaining < 0) {
            detail = oversold("the Redis counter", expectedRemaining);
        } else if (tokens != null && tokens.units() > 0 && redisRemaining != null) {
            detail = "Redis differs from baseline − Σ orders − " + tokens.units() + " units held by " + tokens.count()
                    + " unused tokens: drift (a crash between the Redis step and the commit?)";
        } else if (redisRemaining == null) {
            detail = "Redis has no counter for the item (Redis restarted?): reload it from the orders";
        } else if (inDoubtUnits > 0 && expectedRemaining - redisRemaining == inDoubtUnits) {
            detail = "orders whose commit is in doubt hold " + inDoubtUnits + " units: the order-api that took them "
                    + "settles them once the database answers, or, if it stopped, another one";
        } else {
            detail = "Redis differs from baseline − Σ orders" + (inDoubtUnits > 0 ? " by other than the "
                    + inDoubtUnits + " units orders in doubt hold" : "")
                    + ": drift (a crash between the Redis step and the commit?)";
        }
        return Invariant.of(REDIS_MATCHES_ORDERS, expectedRemaining, redisRemaining, detail);
    }

    /** A DB-lock item's counter is its row's db_remaining, which commits with each order. */
    private static Invariant dbGateInvariant(Baseline b, long expectedRemaining) {
        return Invariant.of(DB_GATE_MATCHES_ORDERS, expectedRemaining, b.dbRemaining(), expectedRemaining < 0
                ? oversold("db_remaining", expectedRemaining)
                : "db_remaining differs from baseline − Σ orders, though both commit in one transaction: changed by hand?");
    }

    /** Neither gate lets its counter go below zero, so an oversold item's cannot match: say so, not drift. */
    private static String oversold(String counter, long expectedRemaining) {
        return counter + " cannot match: the item is oversold (baseline − Σ orders = " + expectedRemaining
                + "; see " + NOT_OVERSOLD + ")";
    }
}
