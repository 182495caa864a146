package io.flashstock.stock.ledger;

/** Why a consumed event was recorded in {@code stock_anomaly} instead of being applied. */
public enum AnomalyKind {
    /** A deduction larger than the quantity its generation has left. */
    INSUFFICIENT_STOCK,
    /**
     * A deduction of a generation whose reset this database has not seen (no row yet, or an older one). It is
     * held, and applied when that reset arrives: two relays may publish an item's events out of order. If a newer
     * reset arrives first, it becomes {@link #STALE}.
     */
    UNKNOWN_GENERATION,
    /** An event older than the stored generation: a deduction taken against a replaced baseline, or a late reset. */
    STALE
}
