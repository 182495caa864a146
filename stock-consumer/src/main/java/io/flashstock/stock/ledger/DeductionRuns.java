package io.flashstock.stock.ledger;

import io.flashstock.contract.StockDeducted;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Applies a run of one item's consecutive deductions of one generation: as a single conditional update; when it
 * changes no row, the item's row is read under a lock to find out which deductions cannot be applied, and those
 * are anomalies.
 */
final class DeductionRuns {

    private final StockLevels levels;
    private final GenerationStep step;

    DeductionRuns(StockLevels levels, GenerationStep step) {
        this.levels = levels;
        this.step = step;
    }

    void apply(List<StockDeducted> run, LedgerBatch batch) {
        if (run.isEmpty()) {
            return;
        }
        String itemCode = run.get(0).itemCode();
        long generation = run.get(0).generation();
        if (levels.deduct(itemCode, generation, total(run), run.size(), batch.now())) {
            batch.applied(run);
            return;
        }
        Optional<StockLevels.Level> level = levels.lock(itemCode);
        step.refuseIfTooFarAhead(run.get(0), level);
        if (level.isEmpty()) {
            run.forEach(d -> batch.anomaly(d, AnomalyKind.UNKNOWN_GENERATION, "no stock reset seen for the item"));
        } else if (generation < level.get().generation()) {
            run.forEach(d -> batch.anomaly(d, AnomalyKind.STALE,
                    "generation " + generation + " is older than the stored generation " + level.get().generation()));
        } else if (generation > level.get().generation()) {
            run.forEach(d -> batch.anomaly(d, AnomalyKind.UNKNOWN_GENERATION, "generation " + generation
                    + " is newer than the stored generation " + level.get().generation() + ": its reset was not seen"));
        } else {
            applyWhatFits(run, level.get().quantity(), batch);
        }
    }

    /** The run as a whole did not fit: apply its deductions in order while they fit, the others are anomalies. */
    private void applyWhatFits(List<StockDeducted> run, long available, LedgerBatch batch) {
        long left = available;
        List<StockDeducted> fitting = new ArrayList<>();
        for (StockDeducted deducted : run) {
            if (deducted.quantity() <= left) {
                fitting.add(deducted);
                left -= deducted.quantity();
            } else {
                batch.anomaly(deducted, AnomalyKind.INSUFFICIENT_STOCK,
                        deducted.quantity() + " units deducted but only " + left + " left");
            }
        }
        if (fitting.isEmpty()) {
            return;
        }
        StockDeducted first = fitting.get(0);
        if (!levels.deduct(first.itemCode(), first.generation(), total(fitting), fitting.size(), batch.now())) {
            // the row is locked by this transaction since it was read, so this would be a bug, not a race
            throw new IllegalStateException("stock_level row of " + first.itemCode() + " changed under its row lock");
        }
        batch.applied(fitting);
    }

    private static long total(List<StockDeducted> run) {
        return run.stream().mapToLong(StockDeducted::quantity).sum();
    }
}
