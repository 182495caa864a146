package io.flashstock.order.stock;

/**
 * Body of {@code PUT /admin/items/{itemCode}/stock}; {@code perUserLimit} null means no limit, {@code gate}
 * null means {@code redis}.
 */
record SetStockRequest(Long quantity, Integer perUserLimit, String gate) {

    /** The gate asked for; call after the input rules accepted it. */
    Gate gateOrDefault() {
        return gate == null ? Gate.REDIS : Gate.byCode(gate).orElseThrow();
    }
}
