package io.flashstock.order.stock;

/** Body of {@code PUT /admin/items/{itemCode}/stock}; {@code perUserLimit} null means no limit. */
record SetStockRequest(Long quantity, Integer perUserLimit) {
}
