package io.flashstock.order.reconciliation;

import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.reconciliation.ReconciliationReport.Invariant;
import io.flashstock.order.reconciliation.ReconciliationReport.ItemReconciliation;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * outbox-relay deletes SENT outbox rows once they are older than its retention. The report must stay exact
 * afterwards: an order whose row is gone counts as published when the stock database proves its event applied,
 * and an order that never had a row is still found.
 */
class ReconciliationRetentionIT extends OrderApiIntegrationTest {

    @Autowired
    private TransactionTemplate transaction;

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "retention");
    }

    @Test
    void theReportStaysExactAfterRetentionDeletedTheSentRows() {
        String item = uniqueItem("retired");
        setStock(item, 10, null);
        assertThat(api().order(item, "ann", 3).status()).isEqualTo(200);
        assertThat(api().order(item, "ben", 2).status()).isEqualTo(200);
        relayed(item);
        assertThat(StandInSources.report(jdbc, redis, item, 5, 2).exact()).as("before the retention").isTrue();

        assertThat(RelayRetention.deleteSentOlderThan(Duration.ZERO, jdbc, transaction))
                .as("the reset's row and both orders'").isEqualTo(3);
        ReconciliationReport report = StandInSources.report(jdbc, redis, item, 5, 2);

        assertThat(report.items().get(0).invariants()).allSatisfy(i -> assertThat(i.holds()).as("%s", i).isTrue());
        assertThat(report.exact()).isTrue();
        assertThat(report.items().get(0).outbox().count()).isZero();
        assertThat(report.items().get(0).outbox().retired()).isEqualTo(2);
    }

    @Test
    void anOrderThatNeverHadAnOutboxRowIsStillFoundAfterRetention() {
        String item = uniqueItem("never-written");
        setStock(item, 10, null);
        assertThat(api().order(item, "ann", 3).status()).isEqualTo(200);
        assertThat(api().order(item, "ben", 2).status()).isEqualTo(200);
        relayed(item);
        RelayRetention.deleteSentOlderThan(Duration.ZERO, jdbc, transaction);
        committedWithoutOutboxRow(item, "eve", 1);

        Invariant outbox = byName(StandInSources.report(jdbc, redis, item, 5, 2).items().get(0))
                .get(Reconciliation.OUTBOX_MATCHES_ORDERS);

        assertThat(outbox.holds()).isFalse();
        assertThat(outbox.expected()).isEqualTo(3);
        assertThat(outbox.actual()).isEqualTo(2);
        assertThat(outbox.detail()).startsWith("1 orders have no outbox row");
    }

    @Test
    void aRetiredRowCountsOnlyOnceTheStockDatabaseAppliedItsEvent() {
        String item = uniqueItem("unproven");
        setStock(item, 10, null);
        for (String user : new String[]{"ann", "ben", "cid"}) {
            assertThat(api().order(item, user, 1).status()).isEqualTo(200);
        }
        relayed(item);
        RelayRetention.deleteSentOlderThan(Duration.ZERO, jdbc, transaction);

        var unproven = byName(StandInSources.report(jdbc, redis, item, 8, 2).items().get(0));
        assertThat(unproven.get(Reconciliation.OUTBOX_MATCHES_ORDERS).holds()).isFalse();
        assertThat(unproven.get(Reconciliation.OUTBOX_MATCHES_ORDERS).difference()).isEqualTo(-1);

        // an order placed since, whose row the relay has not claimed yet, cannot have been applied
        assertThat(api().order(item, "dan", 1).status()).isEqualTo(200);
        var unclaimed = byName(StandInSources.report(jdbc, redis, item, 7, 3).items().get(0));
        assertThat(unclaimed.get(Reconciliation.OUTBOX_MATCHES_ORDERS).holds()).isTrue();
        assertThat(unclaimed.get(Reconciliation.PIPELINE_DRAINED).holds()).isFalse();

        // once claimed it may have been published and applied before being marked sent: it could be the third
        transaction.executeWithoutResult(status -> jdbc.sql(
                "UPDATE outbox_event SET attempts = 1 WHERE aggregate_key = ? AND status = 'NEW'").param(item).update());
        var claimed = byName(StandInSources.report(jdbc, redis, item, 7, 3).items().get(0));
        assertThat(claimed.get(Reconciliation.OUTBOX_MATCHES_ORDERS).holds()).isFalse();
        assertThat(claimed.get(Reconciliation.OUTBOX_MATCHES_ORDERS).difference()).isEqualTo(-1);
    }

    /** What outbox-relay does once Kafka acknowledged the item's rows. */
    private void relayed(String item) {
        transaction.executeWithoutResult(status -> jdbc.sql(
                "UPDATE outbox_event SET status = 'SENT', attempts = 1, sent_at = UTC_TIMESTAMP(6) "
                        + "WHERE aggregate_key = ?").param(item).update());
    }

    /** An order of the item's current generation written without its outbox row: what the invariant is for. */
    private void committedWithoutOutboxRow(String item, String user, int quantity) {
        transaction.executeWithoutResult(status -> jdbc.sql("INSERT INTO purchase_order (order_code, event_id, "
                        + "item_code, generation, user_id, quantity, remaining, idempotency_key, created_at) "
                        + "VALUES (?, ?, ?, 1, ?, ?, 0, NULL, UTC_TIMESTAMP(6))")
                .params(UUID.randomUUID().toString(), UUID.randomUUID().toString(), item, user, quantity)
                .update());
    }

    private static Map<String, Invariant> byName(ItemReconciliation item) {
        return item.invariants().stream().collect(Collectors.toMap(Invariant::name, i -> i));
    }
}
