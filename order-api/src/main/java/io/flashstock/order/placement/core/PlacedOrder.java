package io.flashstock.order.placement.core;

import io.flashstock.contract.StockDeducted;

import java.time.Instant;
import java.util.UUID;

/**
 * An order whose quantity the gate took, about to be written with its {@link StockDeducted} event;
 * {@code loadEpoch} is the load of the Redis counter it was taken from (see {@code GateResult.Taken}).
 */
public record PlacedOrder(String orderCode, UUID eventId, OrderCommand command, long generation, long loadEpoch,
                   long remaining, Instant createdAt) {

    public StockDeducted event() {
        return new StockDeducted(eventId, orderCode, command.itemCode(), command.userId(), command.quantity(),
                generation, createdAt);
    }

    public OrderAnswer answer() {
        return new OrderAnswer(orderCode, command.itemCode(), command.quantity(), remaining);
    }
}
