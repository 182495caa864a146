package io.flashstock.order.placement.core;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.order.stock.Gate;

/**
 * A validated order request; {@code idempotencyKey} is null when the client sent none, {@code pass} for an
 * order of the Redis gate itself. {@code outboxStatus} is what its outbox row is written with, decided at the door
 * ({@code OrderRequests}): {@code WARMUP} for the warm-up's own orders, which the relay does not publish, else
 * {@code NEW}.
 */
public record OrderCommand(String itemCode, String userId, int quantity, String idempotencyKey, GatePass pass,
                           OutboxStatus outboxStatus) {

    public OrderCommand(String itemCode, String userId, int quantity, String idempotencyKey) {
        this(itemCode, userId, quantity, idempotencyKey, null, OutboxStatus.NEW);
    }

    /** An order through a two-step gate's pass. */
    public OrderCommand(String itemCode, String userId, int quantity, String idempotencyKey, GatePass pass) {
        this(itemCode, userId, quantity, idempotencyKey, pass, OutboxStatus.NEW);
    }

    /** The gate the order comes through: the Redis counter's, or a two-step gate's in front of it. */
    public Gate gate() {
        return pass == null ? Gate.REDIS : pass.gate();
    }
}
