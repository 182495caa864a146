package io.flashstock.stock.ledger;

import io.flashstock.contract.StockEvent;

/** An event that was consumed and marked processed, but not applied. */
public record Anomaly(StockEvent event, AnomalyKind kind, String detail) {
}
