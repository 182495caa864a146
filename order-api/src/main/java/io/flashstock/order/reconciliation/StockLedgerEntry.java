package io.flashstock.order.reconciliation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** One item as stock-consumer's {@code GET /stock/items} reports it. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record StockLedgerEntry(String itemCode, long generation, long baseline, long quantity, long eventsApplied,
                               long anomalies) {
}
