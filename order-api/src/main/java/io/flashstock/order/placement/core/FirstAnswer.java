package io.flashstock.order.placement.core;

import java.time.Instant;
import java.util.UUID;

/**
 * What the gate stored for an Idempotency-Key when it first took stock for it, as the Lua script writes it:
 * {@code orderCode:quantity:remaining:generation:userId} (the user id last, as it may contain ':'). The
 * DB-lock gate reads the same from the first order's row.
 */
public record FirstAnswer(String orderCode, int quantity, long remaining, long generation, String userId) {

    private static final int PARTS = 5;

    public static FirstAnswer parse(String stored) {
        String[] parts = stored.split(":", PARTS);
        if (parts.length != PARTS) {
            throw new IllegalArgumentException("not a stored first answer: " + stored);
        }
        return new FirstAnswer(parts[0], Integer.parseInt(parts[1]), Long.parseLong(parts[2]),
                Long.parseLong(parts[3]), parts[4]);
    }

    /** As the Lua script stores it: the inverse of {@link #parse}. */
    public String stored() {
        return orderCode + ":" + quantity + ":" + remaining + ":" + generation + ":" + userId;
    }

    /** When the first attempt made its order code (a UUIDv7, whose first 48 bits are its Unix time in ms). */
    public Instant madeAt() {
        return Instant.ofEpochMilli(UUID.fromString(orderCode).getMostSignificantBits() >>> 16);
    }

    public OrderAnswer answer(String itemCode) {
        return new OrderAnswer(orderCode, itemCode, quantity, remaining);
    }

    public boolean sameOrder(OrderCommand command) {
        return quantity == command.quantity() && userId.equals(command.userId());
    }
}
