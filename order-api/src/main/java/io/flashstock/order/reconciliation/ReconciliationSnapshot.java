package io.flashstock.order.reconciliation;

import io.flashstock.order.queue.WaitingRoomFigures;
import io.flashstock.order.reconciliation.ReconciliationReport.KafkaPosition;
import io.flashstock.order.reconciliation.ReconciliationReport.OrdersRead;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.HeldUnits;

import java.util.List;
import java.util.Map;

/**
 * What one reconciliation read, before any rule is applied: the topic's position, the unsent outbox rows of every
 * item, stock-consumer's ledger and, item by item, its baseline, orders and gate. {@link ReconciliationRules} judges it.
 */
record ReconciliationSnapshot(KafkaPosition position, long unsentEverywhere, StockLedger ledger,
                              List<ItemRead> items, OrdersRead ordersRead) {

    /**
     * One item's reads: {@code redisRemaining} is whatever Redis holds (null without a counter); {@code inDoubtUnits}
     * the units of its orders in doubt (0 for a DB-lock item); {@code tokens} only for a token item with a token gate;
     * {@code waitingRoom} only for a queue item.
     */
    record ItemRead(Baseline baseline, OrderTotals totals, Long redisRemaining, long inDoubtUnits,
                    HeldUnits.Outstanding tokens, WaitingRoomFigures.Figures waitingRoom) {
    }

    record Baseline(String itemCode, long generation, long baseline, Integer perUserLimit, Gate gate,
                    Long dbRemaining) {
    }

    /**
     * An item's orders of its current generation, and the states of their outbox rows; {@code claimedUnsent}
     * of the unsent ones were claimed by a relay at least once, so they may have been published.
     */
    record OrderTotals(long count, long quantity, long withOutboxRow, long quantityWithOutboxRow,
                       long unsent, long sent, long dead, long claimedUnsent) {
        static final OrderTotals NONE = new OrderTotals(0, 0, 0, 0, 0, 0, 0, 0);
    }

    /** What stock-consumer reports, or why it could not. */
    record StockLedger(Map<String, StockLedgerEntry> entries, String problem) {
    }
}
