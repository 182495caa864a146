package io.flashstock.stock.ledger;

/** Why a consumed event was recorded in {@code stock_anomaly} instead of being applied. */
public enum AnomalyKind {
    /** A deduction larger than the quantity its generation has left. */
    INSUFFICIENT_STOCK,
    /** A deduction of a generation whose reset this database has not seen (no row yet, or an older one). */
    UNKNOWN_GENERATION,
    /** An event older than the stored generation: a deduction taken against a replaced baseline, or a late reset. */
    STALE
}
