package io.flashstock.order.stock;

import java.util.List;

/**
 * The Redis keys of an item (docs/architecture.md). Every key carries the item code as the hash tag
 * {@code {item}}, so one item's keys share a Redis Cluster slot and one Lua script may touch them all.
 */
public final class StockKeys {

    private StockKeys() {
    }

    /** Units left: the counter the gate checks and decrements. */
    public static String counter(String itemCode) {
        return "stock:{" + itemCode + "}";
    }

    /** The item whose {@link #counter} {@code counterKey} is. */
    public static String itemOf(String counterKey) {
        if (!counterKey.startsWith("stock:{") || !counterKey.endsWith("}")) {
            throw new IllegalArgumentException("not an item's counter: " + counterKey);
        }
        return counterKey.substring("stock:{".length(), counterKey.length() - 1);
    }

    /** The stock generation, raised by every reset. */
    public static String generation(String itemCode) {
        return counter(itemCode) + ":gen";
    }

    /** The per-user limit; absent means none. */
    public static String limit(String itemCode) {
        return counter(itemCode) + ":limit";
    }

    /** The first answer given to an {@code Idempotency-Key}. */
    public static String idempotency(String itemCode, String key) {
        return counter(itemCode) + ":idem:" + key;
    }

    /**
     * Present while Redis cannot vouch for the item's Idempotency-Keys: a rebuild (or a reset of an item sold before)
     * that found the counter missing or loaded in an earlier life of Redis (a restart, a restore, a failover) sets it
     * for the keys' lifetime, since the first answers stored before are gone or may be. Meanwhile the gate lets the database say whether a key it does
     * not have has an order, before the stock or the per-user limit could refuse its buyer.
     */
    public static String keysLost(String itemCode) {
        return counter(itemCode) + ":keys-lost";
    }

    /**
     * What one order took (remaining, generation and load), so that its take sent again answers it instead of
     * taking twice; the give-back of an order not written deletes it, so that it gives once.
     */
    public static String taken(String itemCode, String orderCode) {
        return counter(itemCode) + ":taken:" + orderCode;
    }

    /**
     * The epoch of the load (reset, reload, warm-up) that last set the counter: the database's
     * {@code stock_item.load_epoch} at that load. An order's transaction writes only while it is still the
     * database's, and stock taken under an earlier load is never given back: that load's successor counted the
     * counter from the orders written, or Redis lost it, so adding the stock back would create stock.
     */
    public static String load(String itemCode) {
        return counter(itemCode) + ":load";
    }

    /**
     * The run id of the Redis process that loaded the counter. The gate sells only from a counter loaded in the
     * life of the process it runs in: a counter restored from a file or a replica may miss its last decrements.
     */
    public static String life(String itemCode) {
        return counter(itemCode) + ":life";
    }

    /** The item's {@link Gate} code, beside a loaded counter: the take script sells only through that gate. */
    public static String gate(String itemCode) {
        return counter(itemCode) + ":gate";
    }

    /** Held while an order-api rebuilds the item's counter, so that one rebuild runs at a time. */
    static String reloading(String itemCode) {
        return counter(itemCode) + ":reloading";
    }

    /**
     * The orders whose commit could not be confirmed either way, by order code, each with the units it took first
     * and what any order-api needs to settle it (placement.gate.InDoubtEntry): they keep their stock
     * until an order-api finds out whether they were written. A reload or reset removes them, because it recounts
     * the item from the orders themselves.
     */
    public static String inDoubt(String itemCode) {
        return counter(itemCode) + ":in-doubt";
    }

    /**
     * The items that may have orders in doubt (a set): an order-api lists the item when it holds one, and the
     * settlement of abandoned orders looks only at these, and unlists an item once it has none.
     */
    public static String inDoubtItems() {
        return "in-doubt:items";
    }

    /**
     * Units a user bought in the generation of a load, counted from the orders by that load and raised by the
     * takes under it (the Lua scripts build the same name).
     */
    public static String bought(String itemCode, long loadEpoch, String userId) {
        return counter(itemCode) + ":e" + loadEpoch + ":user:" + userId;
    }

    /** Counter, generation and limit: the keys the gate and the load script declare, in their order. */
    public static List<String> itemKeys(String itemCode) {
        return List.of(counter(itemCode), generation(itemCode), limit(itemCode));
    }
}
