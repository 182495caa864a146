package io.flashstock.order.placement.commit;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.order.placement.core.PlacedOrder;

/** An order the Redis gate let through, with the status its outbox row is written in. */
public record PendingOrder(PlacedOrder order, OutboxStatus status) {

    String orderCode() {
        return order.orderCode();
    }
}
