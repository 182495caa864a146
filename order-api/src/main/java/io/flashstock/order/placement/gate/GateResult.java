package io.flashstock.order.placement.gate;

import io.flashstock.order.placement.core.FirstAnswer;
import io.flashstock.order.placement.core.GatePass;
import io.flashstock.order.placement.core.Outcome;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.stock.Gate;

import java.util.List;
import java.util.Optional;

/** A gate's answer: the Redis gate's, parsed from the Lua script's reply, or the DB-lock gate's. */
public sealed interface GateResult {

    /**
     * The quantity was taken; {@code remaining} is what is left after it, {@code loadEpoch} the load of the Redis
     * counter it was taken from (0 for the DB-lock gate, whose row lock is its own fence).
     */
    record Taken(long remaining, long generation, long loadEpoch) implements GateResult {
    }

    record SoldOut(long remaining) implements GateResult {
    }

    /** No counter in Redis for the item; for the DB-lock gate, no {@code stock_item} row. */
    record Unknown() implements GateResult {
    }

    /**
     * The item's counter was loaded in an earlier life of Redis (restored from a file or a replica, so it may
     * miss its last decrements): nothing was taken, and it must be rebuilt before anything is sold from it.
     */
    record Untrusted() implements GateResult {
    }

    /**
     * The item is sold through {@code gate}, not the one asked; the Redis gate learns of the DB-lock gate on its
     * miss path (no counter), since that gate keeps none in Redis.
     */
    record WrongGate(Gate gate) implements GateResult {
    }

    record LimitReached(long bought, long limit) implements GateResult {
    }

    /** The Idempotency-Key was seen before: nothing was taken, here is what the first request got. */
    record Replay(FirstAnswer first) implements GateResult {
    }

    /**
     * The Idempotency-Key is not in Redis, but Redis lost the item's keys within their lifetime (a restart, see
     * {@link io.flashstock.order.stock.StockKeys#keysLost}): nothing was taken. Whether the key has an order is the
     * database's to say, before the stock and the per-user limit are checked.
     */
    record KeyUnvouched() implements GateResult {
    }

    /** A two-step gate's pass refused the order (see {@link GatePass}); {@code reason} says why. */
    record Refused(Refusal reason, String detail) implements GateResult {
    }

    /**
     * The outcome of a result that refuses the order by itself, the same at every gate; empty for a result the
     * gate's placement goes on from (taken, a replay, no counter, untrusted, a key to look up).
     */
    default Optional<Outcome> refusal() {
        if (this instanceof SoldOut soldOut) {
            return Optional.of(new Outcome.SoldOut(soldOut.remaining()));
        }
        if (this instanceof LimitReached limit) {
            return Optional.of(new Outcome.LimitReached(limit.bought(), limit.limit()));
        }
        if (this instanceof WrongGate wrongGate) {
            return Optional.of(new Outcome.WrongGate(wrongGate.gate()));
        }
        if (this instanceof Refused refused) {
            return Optional.of(new Outcome.Refused(refused.reason(), refused.detail()));
        }
        return Optional.empty();
    }

    static GateResult parse(List<?> reply) {
        String verdict = (String) reply.get(0);
        return switch (verdict) {
            case "TAKEN" -> new Taken(number(reply, 1), number(reply, 2), number(reply, 3));
            case "SOLD_OUT" -> new SoldOut(number(reply, 1));
            case "UNKNOWN" -> new Unknown();
            case "UNTRUSTED" -> new Untrusted();
            case "LIMIT" -> new LimitReached(number(reply, 3), number(reply, 4));
            case "REPLAY" -> new Replay(FirstAnswer.parse((String) reply.get(1)));
            case "KEY_UNVOUCHED" -> new KeyUnvouched();
            case "WRONG_GATE" -> new WrongGate(Gate.fromColumn((String) reply.get(1)));
            case "REFUSED" -> new Refused(Refusal.valueOf((String) reply.get(1)), (String) reply.get(2));
            default -> throw new IllegalStateException("unexpected reply from the stock gate: " + reply);
        };
    }

    private static long number(List<?> reply, int index) {
        return Long.parseLong((String) reply.get(index));
    }
}
