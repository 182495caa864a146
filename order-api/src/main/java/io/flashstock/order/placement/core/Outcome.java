package io.flashstock.order.placement.core;

import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.stock.Gate;

/**
 * How an order ended, short of a failure of Redis or the database (those throw). Each outcome names what
 * {@code flashstock.orders} counts it as ({@link #counted()}), so that the counting table is here and nowhere else;
 * {@code CountedPlacement} counts it, once per order, for every gate.
 */
public sealed interface Outcome {

    /**
     * The {@code outcome} tag an order is counted under, or {@link #NONE} for an answer that was counted before.
     * {@code FAILED} is for what went wrong; a refusal the design makes on purpose has its own tag
     * ({@code STOCK_RELOADING}, as {@code overloaded}, counted by {@code OverloadShedding}), so that failures mean
     * failures.
     */
    enum Counted {
        ACCEPTED, SOLD_OUT, LIMIT_REACHED, WRONG_GATE, UNKNOWN_ITEM, REJECTED, STOCK_RELOADING, FAILED, NONE
    }

    Counted counted();

    /** A new order, written. */
    record Accepted(OrderAnswer answer) implements Outcome {
        @Override
        public Counted counted() {
            return Counted.ACCEPTED;
        }
    }

    /**
     * A retry answered with its Idempotency-Key's first order, as a new order would be; not counted, since the first
     * order was counted when it was written.
     */
    record Replayed(OrderAnswer answer) implements Outcome {
        @Override
        public Counted counted() {
            return Counted.NONE;
        }
    }

    record SoldOut(long remaining) implements Outcome {
        @Override
        public Counted counted() {
            return Counted.SOLD_OUT;
        }
    }

    record UnknownItem() implements Outcome {
        @Override
        public Counted counted() {
            return Counted.UNKNOWN_ITEM;
        }
    }

    /**
     * The item has a baseline but its counter is missing, untrusted or being rebuilt (or the order was fenced out by a
     * rebuild): nothing was sold, and the engine is rebuilding it. Answered 503, but refused by design, not failed.
     */
    record StockReloading() implements Outcome {
        @Override
        public Counted counted() {
            return Counted.STOCK_RELOADING;
        }
    }

    record LimitReached(long bought, long limit) implements Outcome {
        @Override
        public Counted counted() {
            return Counted.LIMIT_REACHED;
        }
    }

    /** The item is sold through the other endpoint; {@code gate} is the item's. */
    record WrongGate(Gate gate) implements Outcome {
        @Override
        public Counted counted() {
            return Counted.WRONG_GATE;
        }
    }

    /**
     * The first request with this Idempotency-Key took the stock but has not committed (or failed) yet; not counted,
     * since that request is.
     */
    record ReplayInProgress(String orderCode) implements Outcome {
        @Override
        public Counted counted() {
            return Counted.NONE;
        }
    }

    /** A two-step gate's pass refused the order: nothing was taken. */
    record Refused(Refusal reason, String detail) implements Outcome {
        @Override
        public Counted counted() {
            return Counted.REJECTED;
        }
    }

    /** The Idempotency-Key was first used for a different user or quantity. */
    record KeyReused() implements Outcome {
        @Override
        public Counted counted() {
            return Counted.REJECTED;
        }
    }
}
