package io.flashstock.contract;

import com.fasterxml.jackson.annotation.JsonIgnore;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/** An order took {@code quantity} units of an item from the Redis gate and was committed. */
public record StockDeducted(UUID eventId, String orderCode, String itemCode, String userId, int quantity,
                            long generation, Instant occurredAt) implements StockEvent {

    public static final String TYPE = "StockDeducted";

    public StockDeducted {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(orderCode, "orderCode");
        Objects.requireNonNull(itemCode, "itemCode");
        Objects.requireNonNull(occurredAt, "occurredAt");
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive: " + quantity);
        }
    }

    @Override
    @JsonIgnore
    public String type() {
        return TYPE;
    }
}
