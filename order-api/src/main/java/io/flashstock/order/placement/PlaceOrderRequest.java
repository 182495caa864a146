package io.flashstock.order.placement;

/** The body of {@code POST /order/stock/limit}; boxed fields so that a missing one is reported as missing. */
public record PlaceOrderRequest(String itemCode, String userId, Integer quantity) {
}
