package io.flashstock.perf.jpa;

import io.flashstock.contract.StockDeducted;

import java.time.Instant;
import java.util.UUID;

/** What order-api holds of an order when it writes it (its PlacedOrder): the same values go to both write paths. */
record BenchOrder(String orderCode, UUID eventId, String itemCode, long generation, String userId, int quantity,
                  long remaining, String idempotencyKey, Instant createdAt) {

    StockDeducted event() {
        return new StockDeducted(eventId, orderCode, itemCode, userId, quantity, generation, createdAt);
    }
}
