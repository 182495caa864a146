package io.flashstock.stock.locking;

/** Whether batches take a distributed lock per item. */
public enum LockMode {
    /** One Redisson {@code RLock} per item, held until the batch's transaction has committed. */
    REDISSON,
    /** No lock: the database's dedupe table and conditional updates alone keep the ledger exact. */
    NONE
}
