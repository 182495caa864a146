package io.flashstock.order.placement.gate;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.order.placement.core.GatePass;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.stock.Gate;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * An order in doubt as Redis records it ({@code stock:{item}:in-doubt}, under its order code): what any order-api
 * needs to settle it once the one holding it is gone. Stored as
 * {@code quantity:generation:load:heldAt:owner:gate:pass:key:user}: the units first (the waiting room's scripts sum
 * them), the time it was held (ms, Redis's clock, written by hold-in-doubt.lua, so that every order-api ages it by
 * the same clock), the order-api holding it ({@code OrderApiLiveness}), the gate and what it recorded of the order's
 * pass ({@link GatePass#recorded()}, '' for none), the Idempotency-Key in base64url ('' for none; a key may hold ':')
 * and the user id last (it may hold ':' too).
 */
public record InDoubtEntry(String itemCode, String orderCode, int quantity, long generation, long loadEpoch,
                    long heldAtMillis, String owner, Gate gate, String pass, String idempotencyKey, String userId) {

    private static final int PARTS = 9;
    private static final Base64.Encoder KEY_ENCODER = Base64.getUrlEncoder().withoutPadding();

    /** What goes before the time in the stored entry, for hold-in-doubt.lua. */
    static String beforeTime(PlacedOrder order) {
        return order.command().quantity() + ":" + order.generation() + ":" + order.loadEpoch();
    }

    /** What goes after the time in the stored entry, for hold-in-doubt.lua. */
    static String afterTime(PlacedOrder order, String owner) {
        var command = order.command();
        String key = command.idempotencyKey() == null ? ""
                : KEY_ENCODER.encodeToString(command.idempotencyKey().getBytes(StandardCharsets.US_ASCII));
        return owner + ":" + command.gate().code() + ":" + (command.pass() == null ? "" : command.pass().recorded())
                + ":" + key + ":" + command.userId();
    }

    /** The entry as stored, or empty when it is not in this form (an older version's bare quantity, say). */
    public static Optional<InDoubtEntry> parse(String itemCode, String orderCode, String stored) {
        String[] parts = stored.split(":", PARTS);
        if (parts.length != PARTS) {
            return Optional.empty();
        }
        try {
            Optional<Gate> gate = Gate.byCode(parts[5]);
            return gate.map(g -> new InDoubtEntry(itemCode, orderCode, Integer.parseInt(parts[0]),
                    Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3]), parts[4], g, parts[6],
                    parts[7].isEmpty() ? null
                            : new String(Base64.getUrlDecoder().decode(parts[7]), StandardCharsets.US_ASCII),
                    parts[8]));
        } catch (IllegalArgumentException notThisForm) {
            return Optional.empty();
        }
    }

    /** The order's command, with its pass restored ({@code null} for the Redis gate's own), for its give-back. */
    OrderCommand command(GatePass restoredPass) {
        return new OrderCommand(itemCode, userId, quantity, idempotencyKey, restoredPass, OutboxStatus.NEW);
    }
}
