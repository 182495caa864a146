package io.flashstock.order.placement;

import io.flashstock.contract.OutboxStatus;

/** An order the Redis gate let through, with the status its outbox row is written in. */
public record PendingOrder(PlacedOrder order, OutboxStatus status) {

    String orderCode() {
        return order.orderCode();
    }
}
