package io.flashstock.stock.consuming;

import io.flashstock.contract.StockEvent;
import io.flashstock.stock.ledger.LedgerOutcome;
import io.flashstock.stock.ledger.StockLedger;
import io.flashstock.stock.locking.ItemLocks;
import org.springframework.stereotype.Component;

import java.util.Collection;
import java.util.List;

/**
 * The one way events reach the ledger, for the listener and the dead-letter replay alike: one transaction under the
 * locks of their items, then its outcome counted.
 */
@Component
class EventApplier {

    private final ItemLocks locks;
    private final StockLedger ledger;
    private final LedgerMetrics metrics;

    EventApplier(ItemLocks locks, StockLedger ledger, LedgerMetrics metrics) {
        this.locks = locks;
        this.ledger = ledger;
        this.metrics = metrics;
    }

    LedgerOutcome apply(Collection<String> itemCodes, List<StockEvent> events) {
        long started = System.nanoTime();
        LedgerOutcome outcome = locks.callLocked(itemCodes, () -> ledger.apply(events));
        metrics.record(events.size(), outcome, System.nanoTime() - started);
        return outcome;
    }
}
