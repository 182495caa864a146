package io.flashstock.stock.ledger;

import io.flashstock.contract.StockReset;

import java.util.ArrayList;
import java.util.List;

/**
 * The deductions held as anomalies until their generation's reset arrives: an item's events may arrive out of order
 * when more than one relay publishes them.
 */
final class HeldDeductions {

    private final StockLevels levels;
    private final Anomalies anomalies;

    HeldDeductions(StockLevels levels, Anomalies anomalies) {
        this.levels = levels;
        this.anomalies = anomalies;
    }

    /**
     * Applies the deductions of the reset's generation that arrived before it, in the order they were recorded,
     * while they fit; and marks those held for older generations stale, since their baseline is gone.
     */
    void release(StockReset reset, LedgerBatch batch) {
        // deductions held earlier in this batch must be in the table to be found
        batch.recordAnomalies();
        anomalies.staleBefore(reset.itemCode(), reset.generation());
        List<Anomalies.Held> held = anomalies.heldFor(reset.itemCode(), reset.generation());
        if (held.isEmpty()) {
            return;
        }
        long left = reset.quantity();
        List<Anomalies.Held> fitting = new ArrayList<>();
        List<Anomalies.Held> tooLarge = new ArrayList<>();
        for (Anomalies.Held deduction : held) {
            if (deduction.quantity() <= left) {
                fitting.add(deduction);
                left -= deduction.quantity();
            } else {
                tooLarge.add(deduction);
            }
        }
        if (!fitting.isEmpty()) {
            long units = reset.quantity() - left;
            if (!levels.deduct(reset.itemCode(), reset.generation(), units, fitting.size(), batch.now())) {
                // the row was written by this transaction a moment ago, so this would be a bug, not a race
                throw new IllegalStateException("stock_level row of " + reset.itemCode() + " changed under its row lock");
            }
            anomalies.release(fitting);
            batch.released(fitting.size());
        }
        anomalies.reclassify(tooLarge, AnomalyKind.INSUFFICIENT_STOCK,
                "held for its reset, which left too few units for it");
    }
}
