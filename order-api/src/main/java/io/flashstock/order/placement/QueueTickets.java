package io.flashstock.order.placement;

import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.placement.core.GatePass;

/**
 * A waiting room's ticket on an order at {@link GateEndpoints#REDIS} (header {@value OrderController#QUEUE_TICKET}):
 * the queue gate makes it the order's pass, which the Redis gate's take checks and uses. Implemented by the gate's
 * package, so that the order endpoint is one controller's and the ticket's rules stay the queue's.
 */
public interface QueueTickets {

    /**
     * The pass of {@code ticketCode} for an order of {@code itemCode}; refused (thrown) when the ticket is garbled or
     * was issued for another item.
     */
    GatePass admission(String ticketCode, String itemCode);
}
