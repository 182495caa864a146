package io.flashstock.order.placement.core;

import io.flashstock.order.stock.Gate;

import java.util.Optional;

/**
 * A two-step gate's passes, restored from what an order in doubt recorded of its pass ({@link GatePass#recorded()}),
 * so that an order-api other than the one that placed the order gives its stock back and restores its pass in one
 * step, as the order's own request would have. Implemented by the gate's package.
 */
public interface RecordedPasses {

    Gate gate();

    /** The pass, or empty when {@code recorded} cannot be one of this gate's. */
    Optional<GatePass> restore(String recorded);
}
