package io.flashstock.order.placement.core;

/** The 200 answer: the order's code and the units the item has left after it. */
public record OrderAnswer(String orderCode, String itemCode, int quantity, long remaining) {
}
