package io.flashstock.order.stock;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Arrays;
import java.util.Optional;

/**
 * Where an item's units are counted and taken; chosen by each stock reset and stored in {@code stock_item.gate}.
 * An item has exactly one gate, so the two endpoints can never both sell it.
 */
public enum Gate {
    /** The Redis counter and its Lua script: {@code POST /order/stock/limit}. */
    REDIS("redis"),
    /** The item's own {@code stock_item} row, locked with SELECT … FOR UPDATE: the baseline to compare with. */
    DB_LOCK("db-lock");

    private final String code;

    Gate(String code) {
        this.code = code;
    }

    /** The name in requests, answers and the {@code gate} column. */
    @JsonValue
    public String code() {
        return code;
    }

    public static Optional<Gate> byCode(String code) {
        return Arrays.stream(values()).filter(gate -> gate.code.equals(code)).findFirst();
    }

    /** The gate a {@code stock_item.gate} value names; only {@link StockItems} writes that column. */
    public static Gate fromColumn(String code) {
        return byCode(code).orElseThrow(() -> new IllegalStateException("unknown gate in stock_item: " + code));
    }
}
