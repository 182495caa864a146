package io.flashstock.order.placement.core;

import io.flashstock.order.stock.Gate;

import java.util.Arrays;
import java.util.Optional;

/**
 * Where a purchase through each gate starts: the one table of the order endpoints' paths. Each gate's controller
 * maps its own; the filters that count, time and bound the order endpoints, and a wrong gate's answer, name them
 * from here, since they serve every gate.
 */
public final class GateEndpoints {

    /** The Redis gate ({@code OrderController}); an order with a waiting room's ticket or a purchase token too. */
    public static final String REDIS = "/order/stock/limit";
    /** The DB-lock baseline's. */
    public static final String DB_LOCK = REDIS + "/db-lock";
    /** Where a waiting room's users enter; an admitted user then orders at {@link #REDIS}. */
    public static final String QUEUE = "/order/stock/queue/tickets";
    /** Where a token gate's tokens are issued; the order is then placed at {@link #REDIS} with the token. */
    public static final String TOKEN = "/order/stock/tokens";

    private GateEndpoints() {
    }

    /** The endpoint where a purchase through {@code gate} starts. */
    public static String pathOf(Gate gate) {
        return switch (gate) {
            case REDIS -> REDIS;
            case DB_LOCK -> DB_LOCK;
            case QUEUE -> QUEUE;
            case TOKEN -> TOKEN;
        };
    }

    /** The gate whose endpoint {@code path} is, if it is one. */
    public static Optional<Gate> gateOf(String path) {
        return Arrays.stream(Gate.values()).filter(gate -> pathOf(gate).equals(path)).findFirst();
    }
}
