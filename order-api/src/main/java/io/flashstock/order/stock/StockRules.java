package io.flashstock.order.stock;

import io.flashstock.order.web.InputRules;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * What a stock reset accepts, refused like the endpoints' other input ({@link InputRules}): 400
 * {@code INVALID_REQUEST} listing every broken rule, before anything is written. Here, not in {@code web}, since
 * the rules are the stock's: its bound and its gates.
 */
final class StockRules {

    /** Lua numbers are doubles: counters stay exact below 2^53, so stock stays well below that. */
    private static final long MAX_STOCK = 1_000_000_000_000L;

    private StockRules() {
    }

    /** A stock reset: {@code gate} is null (the Redis gate) or one of the {@link Gate} codes. */
    static void checkStock(Long quantity, Integer perUserLimit, String gate) {
        var errors = new ArrayList<String>();
        if (quantity == null) {
            errors.add("quantity is required");
        } else if (quantity < 0 || quantity > MAX_STOCK) {
            errors.add("quantity must be between 0 and " + MAX_STOCK);
        }
        if (perUserLimit != null && perUserLimit < 1) {
            errors.add("perUserLimit must be at least 1, or null for no limit");
        }
        if (gate != null && Gate.byCode(gate).isEmpty()) {
            errors.add("gate must be one of " + Arrays.stream(Gate.values()).map(Gate::code)
                    .collect(Collectors.joining(", ")) + ", or null for redis");
        }
        InputRules.refuseIfAny(errors);
    }
}
