package io.flashstock.order.reconciliation;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import io.flashstock.order.queue.WaitingRoomFigures;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.HeldUnits;

import java.time.Instant;
import java.util.List;

/**
 * The gate (Redis, or a DB-lock item's row) == orders == outbox == Kafka == stock database, item by item.
 * {@code exact} is true only when every invariant of every item holds.
 */
public record ReconciliationReport(Instant generatedAt, boolean exact, boolean drained, KafkaPosition kafka,
                                   List<ItemReconciliation> items, OrdersRead ordersRead) {

    /**
     * Where the orders, outbox rows and baselines were read: {@code primary}, or {@code replica} once it had applied
     * the primary's binary log up to {@code gtidPosition}, read when the report began; {@code note} says why the
     * primary when a replica is set.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record OrdersRead(String source, String gtidPosition, String note) {
    }

    /** The stock topic's end offsets against the consumer group's committed offsets, summed over partitions. */
    public record KafkaPosition(String topic, String group, long endOffsets, long committedOffsets, long lag,
                                long deadLetters, List<PartitionPosition> partitions) {
    }

    public record PartitionPosition(int partition, long endOffset, long committedOffset, long lag) {
    }

    /**
     * {@code redisRemaining} is whatever Redis holds (none for a DB-lock item); {@code dbRemaining} only for one;
     * {@code waitingRoom} only for a queue item: its waiting tickets and unused admissions, which hold no units of
     * the counter. {@code unusedTokens} only for a token item: its tokens issued and not used (nor expired) yet, and
     * the units they hold, which the Redis counter is lower by.
     */
    public record ItemReconciliation(String itemCode, Gate gate, long generation, long baseline, Integer perUserLimit,
                                     Long redisRemaining, Long dbRemaining, long expectedRemaining, Totals orders,
                                     OutboxCounts outbox, int partition, long partitionLag, StockLedgerEntry stock,
                                     List<Invariant> invariants,
                                     @JsonInclude(JsonInclude.Include.NON_NULL) WaitingRoomFigures.Figures waitingRoom,
                                     HeldUnits.Outstanding unusedTokens) {
    }

    public record Totals(long count, long quantity) {
    }

    /**
     * The outbox rows of the item's orders; {@code retired} counts orders whose row is no longer there, which
     * outbox-relay deletes once sent and past its retention.
     */
    public record OutboxCounts(long count, long quantity, long unsent, long sent, long dead, long retired) {
    }

    /**
     * One checked comparison: {@code actual} equals {@code expected}, or, for a bound, is at most it;
     * {@code difference} = actual − expected.
     */
    public record Invariant(String name, boolean holds, long expected, Long actual, long difference, String detail,
                            Comparison comparison) {

        static Invariant of(String name, long expected, Long actual, String detail) {
            long difference = actual == null ? -expected : actual - expected;
            return checked(name, actual != null && difference == 0, expected, actual, difference, detail,
                    Comparison.EQUAL);
        }

        /** Holds while {@code actual} ≤ {@code maximum}; a positive difference is by how much it is over. */
        static Invariant atMost(String name, long maximum, long actual, String detail) {
            return checked(name, actual <= maximum, maximum, actual, actual - maximum, detail, Comparison.AT_MOST);
        }

        private static Invariant checked(String name, boolean holds, long expected, Long actual, long difference,
                                         String detail, Comparison comparison) {
            return new Invariant(name, holds, expected, actual, difference, holds ? null : detail, comparison);
        }
    }

    /** How an invariant compares: without it a client would read a bound's expected as a value to equal. */
    public enum Comparison {
        EQUAL("equal"),
        AT_MOST("at-most");

        private final String code;

        Comparison(String code) {
            this.code = code;
        }

        @JsonValue
        public String code() {
            return code;
        }
    }
}
