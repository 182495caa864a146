package io.flashstock.stock.levels;

import java.time.Instant;

/**
 * An item's row in the stock database.
 *
 * @param eventsApplied deductions applied since the reset that set the baseline
 * @param lastAppliedAt when the last event that changed the row was committed
 * @param anomalies     events of this item recorded as anomalies, of every generation
 */
public record StockLevelView(String itemCode, long generation, long baseline, long quantity, long eventsApplied,
                             Instant lastAppliedAt, long anomalies) {
}
