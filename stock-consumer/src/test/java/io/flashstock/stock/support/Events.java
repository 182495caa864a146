package io.flashstock.stock.support;

import io.flashstock.contract.StockDeducted;
import io.flashstock.contract.StockReset;

import java.time.Instant;
import java.util.UUID;

/** Events as order-api writes them, with fresh ids. */
public final class Events {

    private Events() {
    }

    public static StockReset reset(String itemCode, long quantity, long generation) {
        return new StockReset(UUID.randomUUID(), itemCode, quantity, null, generation, Instant.now());
    }

    public static StockDeducted deducted(String itemCode, int quantity, long generation) {
        return new StockDeducted(UUID.randomUUID(), UUID.randomUUID().toString(), itemCode, "user-1", quantity,
                generation, Instant.now());
    }

    /** A random item code of this test class, so classes never share items. */
    public static String item(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
