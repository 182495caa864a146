package io.flashstock.order.reconciliation;

import io.flashstock.order.queue.WaitingRoomFigures;
import io.flashstock.order.reconciliation.ReconciliationReport.Invariant;
import io.flashstock.order.reconciliation.ReconciliationReport.ItemReconciliation;
import io.flashstock.order.reconciliation.ReconciliationReport.KafkaPosition;
import io.flashstock.order.reconciliation.ReconciliationReport.OrdersRead;
import io.flashstock.order.reconciliation.ReconciliationReport.PartitionPosition;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.Baseline;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.ItemRead;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.OrderTotals;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.StockLedger;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.HeldUnits;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static io.flashstock.order.reconciliation.ReconciliationRules.DB_GATE_MATCHES_ORDERS;
import static io.flashstock.order.reconciliation.ReconciliationRules.EVENTS_APPLIED_MATCH_ORDERS;
import static io.flashstock.order.reconciliation.ReconciliationRules.NOT_OVERSOLD;
import static io.flashstock.order.reconciliation.ReconciliationRules.NO_ANOMALIES;
import static io.flashstock.order.reconciliation.ReconciliationRules.OUTBOX_MATCHES_ORDERS;
import static io.flashstock.order.reconciliation.ReconciliationRules.PIPELINE_DRAINED;
import static io.flashstock.order.reconciliation.ReconciliationRules.REDIS_MATCHES_ORDERS;
import static io.flashstock.order.reconciliation.ReconciliationRules.STOCK_DB_MATCHES_ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reconciliation's rules over hand-made snapshots, one invariant at a time: each starts from an item where
 * everything agrees (baseline 10, 3 orders of 4 units, all sent and applied) and changes the one figure the rule
 * looks at.
 */
class ReconciliationRulesTest {

    private static final Instant NOW = Instant.parse("2026-11-26T16:00:00Z");
    private static final String ITEM = "sneaker";
    private static final int PARTITIONS = 3;
    private static final int ITEM_PARTITION = KafkaPositions.partitionOf(ITEM, PARTITIONS);
    private static final int OTHER_PARTITION = (ITEM_PARTITION + 1) % PARTITIONS;

    private Gate gate = Gate.REDIS;
    private long baseline = 10;
    private Long dbRemaining = null;
    private OrderTotals totals = new OrderTotals(3, 4, 3, 4, 0, 3, 0, 0);
    private Long redisRemaining = 6L;
    private long inDoubtUnits = 0;
    private HeldUnits.Outstanding tokens = null;
    private WaitingRoomFigures.Figures waitingRoom = null;
    private StockLedger ledger = ledger(new StockLedgerEntry(ITEM, 1, 10, 6, 3, 0));
    private long unsentEverywhere = 0;
    private long[] lag = {0, 0, 0};

    @Test
    void anItemWhereEverythingAgreesHoldsEveryInvariantInTheirOrder() {
        ReconciliationReport report = judge();

        assertThat(report.exact()).isTrue();
        assertThat(report.drained()).isTrue();
        assertThat(report.generatedAt()).isEqualTo(NOW);
        ItemReconciliation item = report.items().get(0);
        assertThat(item.invariants()).extracting(Invariant::name).containsExactly(REDIS_MATCHES_ORDERS,
                OUTBOX_MATCHES_ORDERS, PIPELINE_DRAINED, STOCK_DB_MATCHES_ORDERS, EVENTS_APPLIED_MATCH_ORDERS,
                NO_ANOMALIES, NOT_OVERSOLD);
        assertThat(item.invariants()).allSatisfy(i -> {
            assertThat(i.holds()).as(i.name()).isTrue();
            assertThat(i.detail()).as(i.name()).isNull();
        });
        assertThat(item.expectedRemaining()).isEqualTo(6);
        assertThat(item.partition()).isEqualTo(ITEM_PARTITION);
    }

    @Test
    void redisBelowTheOrdersIsDrift() {
        redisRemaining = 5L;

        Invariant redis = invariant(REDIS_MATCHES_ORDERS);

        assertFails(redis, 6, 5L, -1);
        assertThat(redis.detail()).isEqualTo(
                "Redis differs from baseline − Σ orders: drift (a crash between the Redis step and the commit?)");
        assertThat(judge().exact()).isFalse();
    }

    @Test
    void redisAboveTheOrdersIsDriftToo() {
        redisRemaining = 7L;

        assertFails(invariant(REDIS_MATCHES_ORDERS), 6, 7L, 1);
    }

    @Test
    void aMissingCounterSaysToReloadIt() {
        redisRemaining = null;

        Invariant redis = invariant(REDIS_MATCHES_ORDERS);

        assertFails(redis, 6, null, -6);
        assertThat(redis.detail()).isEqualTo(
                "Redis has no counter for the item (Redis restarted?): reload it from the orders");
    }

    @Test
    void ordersInDoubtThatAccountForTheDifferenceAreNamedAsSuch() {
        redisRemaining = 4L;
        inDoubtUnits = 2;

        Invariant redis = invariant(REDIS_MATCHES_ORDERS);

        assertFails(redis, 6, 4L, -2);
        assertThat(redis.detail()).isEqualTo("orders whose commit is in doubt hold 2 units: the order-api that took "
                + "them settles them once the database answers, or, if it stopped, another one");
    }

    @Test
    void ordersInDoubtThatDoNotAccountForTheDifferenceAreDrift() {
        redisRemaining = 3L;
        inDoubtUnits = 2;

        assertThat(invariant(REDIS_MATCHES_ORDERS).detail()).isEqualTo("Redis differs from baseline − Σ orders by "
                + "other than the 2 units orders in doubt hold: drift (a crash between the Redis step and the commit?)");
    }

    @Test
    void aTokenItemsUnusedTokensHoldUnitsOutsideTheCounter() {
        gate = Gate.TOKEN;
        tokens = new HeldUnits.Outstanding(2, 3);
        redisRemaining = 3L;

        assertThat(invariant(REDIS_MATCHES_ORDERS).holds()).isTrue();
        assertThat(item().unusedTokens()).isEqualTo(tokens);

        redisRemaining = 6L;
        Invariant drift = invariant(REDIS_MATCHES_ORDERS);
        assertFails(drift, 3, 6L, 3);
        assertThat(drift.detail()).isEqualTo("Redis differs from baseline − Σ orders − 3 units held by 2 unused "
                + "tokens: drift (a crash between the Redis step and the commit?)");
    }

    @Test
    void anOversoldItemsCounterCannotMatchAndSaysWhy() {
        totals = new OrderTotals(3, 12, 3, 12, 0, 3, 0, 0);
        redisRemaining = 0L;

        assertThat(invariant(REDIS_MATCHES_ORDERS).detail()).isEqualTo("the Redis counter cannot match: the item is "
                + "oversold (baseline − Σ orders = -2; see not-oversold)");
    }

    @Test
    void aDbLockItemIsJudgedByItsRowsRemainingNotByRedis() {
        gate = Gate.DB_LOCK;
        redisRemaining = null;
        dbRemaining = 6L;

        ItemReconciliation item = item();
        assertThat(item.invariants()).extracting(Invariant::name)
                .contains(DB_GATE_MATCHES_ORDERS).doesNotContain(REDIS_MATCHES_ORDERS);
        assertThat(invariant(DB_GATE_MATCHES_ORDERS).holds()).isTrue();

        dbRemaining = 5L;
        Invariant changed = invariant(DB_GATE_MATCHES_ORDERS);
        assertFails(changed, 6, 5L, -1);
        assertThat(changed.detail()).isEqualTo("db_remaining differs from baseline − Σ orders, though both commit in "
                + "one transaction: changed by hand?");
    }

    @Test
    void anOversoldDbLockItemsRowCannotMatchAndSaysWhy() {
        gate = Gate.DB_LOCK;
        dbRemaining = 0L;
        totals = new OrderTotals(3, 11, 3, 11, 0, 3, 0, 0);

        assertThat(invariant(DB_GATE_MATCHES_ORDERS).detail()).isEqualTo("db_remaining cannot match: the item is "
                + "oversold (baseline − Σ orders = -1; see not-oversold)");
    }

    @Test
    void anOrderWithoutItsOutboxRowFailsTheOutbox() {
        totals = new OrderTotals(3, 4, 2, 3, 0, 2, 0, 0);
        ledger = ledger(new StockLedgerEntry(ITEM, 1, 10, 7, 2, 0));

        Invariant outbox = invariant(OUTBOX_MATCHES_ORDERS);

        assertFails(outbox, 3, 2L, -1);
        assertThat(outbox.detail()).isEqualTo("1 orders have no outbox row: never written, or deleted once sent but "
                + "not yet applied in the stock database (0 more were deleted once applied)");
        assertThat(item().outbox().retired()).isEqualTo(1);
    }

    @Test
    void aRowDeletedOnceItsEventWasAppliedIsProvenRetired() {
        // 3 orders, 2 rows left (sent), 3 events applied: the third was the deleted row's
        totals = new OrderTotals(3, 4, 2, 3, 0, 2, 0, 0);

        assertThat(invariant(OUTBOX_MATCHES_ORDERS).holds()).isTrue();
    }

    @Test
    void rowsStillPresentThatMayHaveBeenPublishedProveNoRetiredRow() {
        // 3 orders, 2 rows left: one sent, one unsent; 2 events applied, the second maybe the unsent row's
        ledger = ledger(new StockLedgerEntry(ITEM, 1, 10, 6, 2, 0));
        totals = new OrderTotals(3, 4, 2, 3, 1, 1, 0, 1);

        assertFails(invariant(OUTBOX_MATCHES_ORDERS), 3, 2L, -1);

        totals = new OrderTotals(3, 4, 2, 3, 1, 1, 0, 0);
        assertThat(invariant(OUTBOX_MATCHES_ORDERS).holds()).as("never claimed, so never published").isTrue();
    }

    @Test
    void unsentRowsOfTheItemFailTheDrain() {
        totals = new OrderTotals(3, 4, 3, 4, 1, 2, 0, 0);
        unsentEverywhere = 1;

        Invariant drain = invariant(PIPELINE_DRAINED);

        assertFails(drain, 0, 1L, 1);
        assertThat(drain.detail()).isEqualTo("1 outbox rows unsent, 0 records not yet consumed on partition "
                + ITEM_PARTITION);
        assertThat(judge().drained()).isFalse();
    }

    @Test
    void recordsNotConsumedOnTheItemsPartitionFailTheDrain() {
        lag[ITEM_PARTITION] = 2;

        Invariant drain = invariant(PIPELINE_DRAINED);

        assertFails(drain, 0, 2L, 2);
        assertThat(drain.detail()).isEqualTo("0 outbox rows unsent, 2 records not yet consumed on partition "
                + ITEM_PARTITION);
        assertThat(item().partitionLag()).isEqualTo(2);
        assertThat(judge().drained()).isFalse();
    }

    @Test
    void lagOnAnotherPartitionIsNotTheItemsButTheReportIsNotDrained() {
        lag[OTHER_PARTITION] = 5;

        assertThat(invariant(PIPELINE_DRAINED).holds()).isTrue();
        assertThat(judge().drained()).as("drained promises every counted event applied, of every item").isFalse();
        assertThat(judge().exact()).isTrue();
    }

    @Test
    void anotherItemsUnsentRowsMeanTheReportIsNotDrained() {
        unsentEverywhere = 1;

        assertThat(invariant(PIPELINE_DRAINED).holds()).isTrue();
        assertThat(judge().drained()).isFalse();
    }

    @Test
    void aStockDatabaseBehindTheOrdersFailsStockAndEvents() {
        ledger = ledger(new StockLedgerEntry(ITEM, 1, 10, 7, 2, 0));

        Invariant stock = invariant(STOCK_DB_MATCHES_ORDERS);
        Invariant events = invariant(EVENTS_APPLIED_MATCH_ORDERS);

        assertFails(stock, 6, 7L, 1);
        assertThat(stock.detail()).isEqualTo("stock database differs from baseline − Σ orders");
        assertFails(events, 3, 2L, -1);
        assertThat(events.detail()).isEqualTo("stock database differs from baseline − Σ orders");
    }

    @Test
    void deadRowsAreNamedAsTheReasonTheStockDatabaseDiffers() {
        totals = new OrderTotals(3, 4, 3, 4, 0, 2, 1, 0);
        ledger = ledger(new StockLedgerEntry(ITEM, 1, 10, 7, 2, 0));

        assertThat(invariant(STOCK_DB_MATCHES_ORDERS).detail())
                .isEqualTo("1 outbox rows are DEAD and never reached Kafka");
    }

    @Test
    void aStockDatabaseAtAnotherGenerationIsNotCompared() {
        ledger = ledger(new StockLedgerEntry(ITEM, 2, 10, 6, 3, 0));

        Invariant stock = invariant(STOCK_DB_MATCHES_ORDERS);

        assertFails(stock, 6, null, -6);
        assertThat(stock.detail()).isEqualTo("stock database is at generation 2, orders at 1");
        assertFails(invariant(EVENTS_APPLIED_MATCH_ORDERS), 3, null, -3);
    }

    @Test
    void noStockRowForTheItemFailsBothStockInvariants() {
        ledger = new StockLedger(Map.of(), null);

        assertThat(invariant(STOCK_DB_MATCHES_ORDERS).detail()).isEqualTo("stock database has no row for the item");
        assertThat(invariant(EVENTS_APPLIED_MATCH_ORDERS).holds()).isFalse();
        assertThat(invariant(NO_ANOMALIES).holds()).as("no row, no anomaly recorded").isTrue();
    }

    @Test
    void anUnreachableStockConsumerGivesItsReasonAndTheRestOfTheReport() {
        ledger = new StockLedger(Map.of(), "stock-consumer did not answer: refused");

        assertThat(invariant(STOCK_DB_MATCHES_ORDERS).detail()).isEqualTo("stock-consumer did not answer: refused");
        assertThat(invariant(EVENTS_APPLIED_MATCH_ORDERS).detail()).isEqualTo("stock-consumer did not answer: refused");
        assertThat(invariant(REDIS_MATCHES_ORDERS).holds()).isTrue();
    }

    @Test
    void anomaliesRecordedByStockConsumerFailTheirInvariant() {
        ledger = ledger(new StockLedgerEntry(ITEM, 1, 10, 6, 3, 2));

        Invariant anomalies = invariant(NO_ANOMALIES);

        assertFails(anomalies, 0, 2L, 2);
        assertThat(anomalies.detail())
                .isEqualTo("stock-consumer recorded deductions it could not apply (GET /stock/anomalies)");
    }

    @Test
    void ordersUpToTheBaselineAreNotOversold() {
        totals = new OrderTotals(3, 10, 3, 10, 0, 3, 0, 0);
        redisRemaining = 0L;

        Invariant bound = invariant(NOT_OVERSOLD);

        assertThat(bound.holds()).isTrue();
        assertThat(bound.difference()).isZero();
    }

    @Test
    void ordersBeyondTheBaselineAreOversold() {
        totals = new OrderTotals(3, 12, 3, 12, 0, 3, 0, 0);

        Invariant bound = invariant(NOT_OVERSOLD);

        assertThat(bound.holds()).isFalse();
        assertThat(bound.expected()).isEqualTo(10);
        assertThat(bound.actual()).isEqualTo(12);
        assertThat(bound.difference()).isEqualTo(2);
        assertThat(bound.detail()).isEqualTo("oversold by 2 units: the orders of generation 1 commit 12 units of a "
                + "baseline of 10");
    }

    @Test
    void aQueueItemCarriesItsWaitingRoomAndOnlyIt() {
        waitingRoom = new WaitingRoomFigures.Figures(4, 1, 2);
        gate = Gate.QUEUE;

        assertThat(item().waitingRoom()).isEqualTo(waitingRoom);
        assertThat(item().gate()).isEqualTo(Gate.QUEUE);
    }

    private ReconciliationReport judge() {
        List<PartitionPosition> partitions = java.util.stream.IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new PartitionPosition(p, 100 + lag[p], 100, lag[p])).toList();
        long totalLag = java.util.Arrays.stream(lag).sum();
        var position = new KafkaPosition("stock-events", "stock-consumer", 300 + totalLag, 300, totalLag, 0,
                partitions);
        var item = new ItemRead(new Baseline(ITEM, 1, baseline, 5, gate, dbRemaining), totals, redisRemaining,
                inDoubtUnits, tokens, waitingRoom);
        return ReconciliationRules.judge(new ReconciliationSnapshot(position, unsentEverywhere, ledger, List.of(item),
                new OrdersRead("primary", null, null)), NOW);
    }

    private ItemReconciliation item() {
        return judge().items().get(0);
    }

    private Invariant invariant(String name) {
        Map<String, Invariant> byName = item().invariants().stream()
                .collect(Collectors.toMap(Invariant::name, i -> i));
        assertThat(byName).containsKey(name);
        return byName.get(name);
    }

    private static void assertFails(Invariant invariant, long expected, Long actual, long difference) {
        assertThat(invariant.holds()).as(invariant.name() + " holds").isFalse();
        assertThat(invariant.expected()).as(invariant.name() + " expected").isEqualTo(expected);
        assertThat(invariant.actual()).as(invariant.name() + " actual").isEqualTo(actual);
        assertThat(invariant.difference()).as(invariant.name() + " difference").isEqualTo(difference);
        assertThat(invariant.detail()).as(invariant.name() + " detail").isNotNull();
    }

    private static StockLedger ledger(StockLedgerEntry entry) {
        return new StockLedger(Map.of(entry.itemCode(), entry), null);
    }
}
