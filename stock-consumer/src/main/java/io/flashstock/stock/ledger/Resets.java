package io.flashstock.stock.ledger;

import io.flashstock.contract.StockReset;

import java.util.Optional;

/**
 * Applies a reset newer than the stored generation (creating the item's row for its first), then the deductions
 * held for it; a reset not newer is stale.
 */
final class Resets {

    private final StockLevels levels;
    private final HeldDeductions held;
    private final GenerationStep step;

    Resets(StockLevels levels, HeldDeductions held, GenerationStep step) {
        this.levels = levels;
        this.held = held;
        this.step = step;
    }

    void apply(StockReset reset, LedgerBatch batch) {
        if (levels.resetIfNewer(reset, step.max(), batch.now())) {
            batch.applied(reset);
            held.release(reset, batch);
            return;
        }
        Optional<StockLevels.Level> level = levels.lock(reset.itemCode());
        step.refuseIfTooFarAhead(reset, level);
        if (level.isEmpty()) {
            levels.insert(reset, batch.now());
            batch.applied(reset);
            held.release(reset, batch);
        } else {
            batch.anomaly(reset, AnomalyKind.STALE, "reset to generation " + reset.generation()
                    + " is not newer than the stored generation " + level.get().generation());
        }
    }
}
