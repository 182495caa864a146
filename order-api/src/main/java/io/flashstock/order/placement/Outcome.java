package io.flashstock.order.placement;

import io.flashstock.order.stock.Gate;
import io.flashstock.order.web.ProblemType;

/** How an order ended, short of a failure of Redis or the database (those throw). */
public sealed interface Outcome {

    record Accepted(OrderAnswer answer) implements Outcome {
    }

    record SoldOut(long remaining) implements Outcome {
    }

    record UnknownItem() implements Outcome {
    }

    /**
     * The item has a baseline but its counter is missing, untrusted or being rebuilt: nothing was sold, and the
     * engine is rebuilding it.
     */
    record StockReloading() implements Outcome {
    }

    record LimitReached(long bought, long limit) implements Outcome {
    }

    /** The item is sold through the other endpoint; {@code gate} is the item's. */
    record WrongGate(Gate gate) implements Outcome {
    }

    /** The first request with this Idempotency-Key took the stock but has not committed (or failed) yet. */
    record ReplayInProgress(String orderCode) implements Outcome {
    }

    /** A two-step gate's pass refused the order: nothing was taken. */
    record Refused(ProblemType type, String detail) implements Outcome {
    }

    /** The Idempotency-Key was first used for a different user or quantity. */
    record KeyReused() implements Outcome {
    }
}
