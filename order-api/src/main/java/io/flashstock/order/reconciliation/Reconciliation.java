package io.flashstock.order.reconciliation;

import io.flashstock.order.queue.WaitingRoomFigures;
import io.flashstock.order.reconciliation.ReconciliationReport.KafkaPosition;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.Baseline;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.ItemRead;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.OrderTotals;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.StockLedger;
import io.flashstock.order.stock.HeldUnits;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Builds the reconciliation report: for each item with a baseline, what its gate (the Redis counter, or the
 * {@code db_remaining} of a DB-lock item), the orders, the outbox, Kafka and the stock database say, and
 * whether they agree. This class reads, in the order the "drained" promise needs; {@link ReconciliationRules} judges.
 */
public class Reconciliation {

    // the invariants' names, where the report's clients and tests have always found them
    static final String REDIS_MATCHES_ORDERS = ReconciliationRules.REDIS_MATCHES_ORDERS;
    static final String DB_GATE_MATCHES_ORDERS = ReconciliationRules.DB_GATE_MATCHES_ORDERS;
    static final String OUTBOX_MATCHES_ORDERS = ReconciliationRules.OUTBOX_MATCHES_ORDERS;
    static final String PIPELINE_DRAINED = ReconciliationRules.PIPELINE_DRAINED;
    static final String STOCK_DB_MATCHES_ORDERS = ReconciliationRules.STOCK_DB_MATCHES_ORDERS;
    static final String EVENTS_APPLIED_MATCH_ORDERS = ReconciliationRules.EVENTS_APPLIED_MATCH_ORDERS;
    static final String NO_ANOMALIES = ReconciliationRules.NO_ANOMALIES;
    static final String NOT_OVERSOLD = ReconciliationRules.NOT_OVERSOLD;

    private final OrdersReads ordersReads;
    private final KafkaPositions kafka;
    private final StockConsumerLedger stockConsumer;
    private final Clock clock;
    private final GateReads gates;

    /**
     * {@code waitingRooms}: the waiting rooms' tickets and admissions; {@code heldUnits}: the units the token gate's
     * unused tokens hold, outside the counter and the orders (null without a token gate).
     */
    public Reconciliation(OrdersReads ordersReads, StringRedisTemplate redis, KafkaPositions kafka,
                          StockConsumerLedger stockConsumer, Clock clock, WaitingRoomFigures waitingRooms,
                          HeldUnits heldUnits) {
        this.ordersReads = ordersReads;
        this.kafka = kafka;
        this.stockConsumer = stockConsumer;
        this.clock = clock;
        this.gates = new GateReads(redis, waitingRooms, heldUnits);
    }

    /** The report for one item, or for every item with a baseline when {@code itemCode} is empty. */
    public ReconciliationReport report(Optional<String> itemCode) {
        // "drained" promises that the stock database applied every event of every row counted here. So the
        // consumer's progress is read first, the items next, the unsent rows after them, the topic's end last:
        // a row counted is then unsent, or sent before its end was read, so either below the committed offsets
        // (applied before the stock database was read) or in the lag
        KafkaPositions.Consumed consumed = kafka.consumed();
        OrdersReads.Source source = ordersReads.begin();
        JdbcClient orders = source.jdbc();
        List<Baseline> baselines = OrderFigures.baselines(orders, itemCode);
        Map<String, OrderTotals> totals = OrderFigures.orderTotals(orders, itemCode);
        StockLedger ledger = stockConsumer.read();
        long unsentEverywhere = OrderFigures.unsent(orders);
        KafkaPosition position = kafka.against(consumed);

        List<ItemRead> items = new ArrayList<>();
        for (Baseline b : baselines) {
            items.add(gates.read(b, totals.getOrDefault(b.itemCode(), OrderTotals.NONE)));
        }
        return ReconciliationRules.judge(
                new ReconciliationSnapshot(position, unsentEverywhere, ledger, items, source.read()), clock.instant());
    }
}
