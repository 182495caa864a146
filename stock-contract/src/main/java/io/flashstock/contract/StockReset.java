package io.flashstock.contract;

import com.fasterxml.jackson.annotation.JsonIgnore;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/** An operator set an item's stock to {@code quantity}; it starts a new {@code generation}. */
public record StockReset(UUID eventId, String itemCode, long quantity, Integer perUserLimit, long generation,
                         Instant occurredAt) implements StockEvent {

    public static final String TYPE = "StockReset";

    public StockReset {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(itemCode, "itemCode");
        Objects.requireNonNull(occurredAt, "occurredAt");
        if (quantity < 0) {
            throw new IllegalArgumentException("quantity must not be negative: " + quantity);
        }
    }

    @Override
    @JsonIgnore
    public String type() {
        return TYPE;
    }
}
