package io.flashstock.order.stock;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Arrays;
import java.util.Optional;

/**
 * How an item is sold; chosen by each stock reset and stored in {@code stock_item.gate}. An item has exactly one
 * gate, so two endpoints can never both sell it. Every gate but {@link #DB_LOCK} counts its units in the Redis
 * counter and takes them with its Lua script; the counter records its gate, so that the script refuses an order
 * that comes the wrong way (a plain order for an item sold through a waiting room, say).
 */
public enum Gate {
    /** The Redis counter and its Lua script: {@code POST /order/stock/limit}. */
    REDIS("redis"),
    /** The item's own {@code stock_item} row, locked with SELECT … FOR UPDATE: the baseline to compare with. */
    DB_LOCK("db-lock"),
    /** A waiting room: users queue, a scheduler admits a few at a time, and an admitted user orders once. */
    QUEUE("queue"),
    /** A signed purchase token takes the units first; the order is placed with it. */
    TOKEN("token");

    private final String code;

    Gate(String code) {
        this.code = code;
    }

    /** The name in requests, answers and the {@code gate} column. */
    @JsonValue
    public String code() {
        return code;
    }

    /** Whether the item's units are counted in Redis (every gate but the DB-lock baseline). */
    public boolean countedInRedis() {
        return this != DB_LOCK;
    }

    public static Optional<Gate> byCode(String code) {
        return Arrays.stream(values()).filter(gate -> gate.code.equals(code)).findFirst();
    }

    /** The gate a {@code stock_item.gate} value names; only {@link StockItems} writes that column. */
    public static Gate fromColumn(String code) {
        return byCode(code).orElseThrow(() -> new IllegalStateException("unknown gate in stock_item: " + code));
    }
}
