package io.flashstock.order.placement;

/** A validated order request; {@code idempotencyKey} is null when the client sent none. */
record OrderCommand(String itemCode, String userId, int quantity, String idempotencyKey) {
}
