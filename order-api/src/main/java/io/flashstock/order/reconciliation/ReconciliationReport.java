package io.flashstock.order.reconciliation;

import io.flashstock.order.stock.Gate;

import java.time.Instant;
import java.util.List;

/**
 * The gate (Redis, or a DB-lock item's row) == orders == outbox == Kafka == stock database, item by item.
 * {@code exact} is true only when every invariant of every item holds.
 */
public record ReconciliationReport(Instant generatedAt, boolean exact, boolean drained, KafkaPosition kafka,
                                   List<ItemReconciliation> items) {

    /** The stock topic's end offsets against the consumer group's committed offsets, summed over partitions. */
    public record KafkaPosition(String topic, String group, long endOffsets, long committedOffsets, long lag,
                                long deadLetters, List<PartitionPosition> partitions) {
    }

    public record PartitionPosition(int partition, long endOffset, long committedOffset, long lag) {
    }

    /** {@code redisRemaining} is whatever Redis holds (none for a DB-lock item); {@code dbRemaining} only for one. */
    public record ItemReconciliation(String itemCode, Gate gate, long generation, long baseline, Integer perUserLimit,
                                     Long redisRemaining, Long dbRemaining, long expectedRemaining, Totals orders,
                                     OutboxCounts outbox, int partition, long partitionLag, StockLedgerEntry stock,
                                     List<Invariant> invariants) {
    }

    public record Totals(long count, long quantity) {
    }

    public record OutboxCounts(long count, long quantity, long unsent, long sent, long dead) {
    }

    /** One checked equality; {@code difference} = actual − expected. */
    public record Invariant(String name, boolean holds, long expected, Long actual, long difference, String detail) {

        static Invariant of(String name, long expected, Long actual, String detail) {
            long difference = actual == null ? -expected : actual - expected;
            boolean holds = actual != null && difference == 0;
            return new Invariant(name, holds, expected, actual, difference, holds ? null : detail);
        }
    }
}
