package io.flashstock.stock.ledger;

import io.flashstock.contract.StockEvent;

import java.util.List;

/**
 * What one committed batch did.
 *
 * @param applied    events that changed the stock database, in the order they were applied
 * @param duplicates events skipped because their id was already processed (or repeated within the batch)
 * @param anomalies  events recorded in {@code stock_anomaly} instead of being applied
 * @param released   deductions of earlier batches that had waited for their reset and were applied with it
 */
public record LedgerOutcome(List<StockEvent> applied, int duplicates, List<Anomaly> anomalies, int released) {
}
