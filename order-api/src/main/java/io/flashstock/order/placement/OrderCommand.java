package io.flashstock.order.placement;

import io.flashstock.order.stock.Gate;

/**
 * A validated order request; {@code idempotencyKey} is null when the client sent none, {@code pass} for an
 * order of the Redis gate itself.
 */
public record OrderCommand(String itemCode, String userId, int quantity, String idempotencyKey, GatePass pass) {

    OrderCommand(String itemCode, String userId, int quantity, String idempotencyKey) {
        this(itemCode, userId, quantity, idempotencyKey, null);
    }

    /** The gate the order comes through: the Redis counter's, or a two-step gate's in front of it. */
    public Gate gate() {
        return pass == null ? Gate.REDIS : pass.gate();
    }
}
