package io.flashstock.contract;

/** Values of {@code outbox_event.status} in the orders database. */
public enum OutboxStatus {
    /** Waiting to be published (possibly claimed by a relay whose lease has not run out). */
    NEW,
    /** The broker acknowledged the record. */
    SENT,
    /** Publishing failed more often than the relay's attempt limit; kept for an operator, never dropped. */
    DEAD,
    /** Written by the JIT warm-up: goes through the same insert but is never published, then removed. */
    WARMUP
}
