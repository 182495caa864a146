package io.flashstock.order.token;

import io.flashstock.order.stock.StockKeys;

/**
 * The token gate's Redis keys of an item, beside its counter (same hash tag, same cluster slot). The Lua scripts
 * build the same names from the counter's key.
 */
final class TokenKeys {

    private TokenKeys() {
    }

    /** Hash: token id → its hold, {@code state:quantity:generation:expires:attempt:remaining:user}. */
    static String holds(String itemCode) {
        return StockKeys.counter(itemCode) + ":tokens";
    }

    /** Sorted set: token id by expiry + grace (ms, Redis's clock): what the sweeper looks at. */
    static String expiry(String itemCode) {
        return StockKeys.counter(itemCode) + ":token-expiry";
    }
}
