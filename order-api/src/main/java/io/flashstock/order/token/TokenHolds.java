package io.flashstock.order.token;

import io.flashstock.order.placement.core.PlacementSettings;
import io.flashstock.order.placement.gate.SlotMovingRetry;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.RedisScripts;
import io.flashstock.order.stock.StockKeys;
import io.flashstock.order.stock.StockSettings;
import io.flashstock.order.web.ProblemException;
import io.flashstock.order.web.ProblemType;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The Redis side of the token gate: the units a token holds, each change one atomic Lua step. A hold is issued
 * (by the gate's own take script, so the checks of life, gate, stock and per-user limit are the gate's), goes to
 * ordering while one attempt writes its order, and ends either as that order (deleted once it is written) or
 * given back at its expiry (deleted in the same step). Keys: {@link TokenKeys}.
 */
@Component
class TokenHolds {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> TAKE = RedisScripts.loadWithLife("take-stock.lua", List.class);
    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> REDEEM = RedisScripts.loadWithLife("token-redeem.lua", List.class);
    private static final RedisScript<Long> FINISH = RedisScripts.load("token-finish.lua", Long.class);
    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> EXPIRE = RedisScripts.load("token-expire.lua", List.class);
    /** Holds looked at per sweep step, so one step never blocks Redis long. */
    static final int SWEEP_BATCH = 500;

    /** The take's answer to an issue. */
    sealed interface Issue {
        record Held(long remaining, long generation, Instant expiresAt) implements Issue {
        }

        record SoldOut(long remaining) implements Issue {
        }

        record LimitReached(long bought, long limit) implements Issue {
        }

        record WrongGate(Gate gate) implements Issue {
        }

        /** The item has {@code maxHolds} holds outstanding; the first of them expires in {@code waitMillis}. */
        record HoldsFull(long maxHolds, long waitMillis) implements Issue {
        }

        /** No counter: the item is unknown, sold by its row, or Redis lost it. */
        record Unknown() implements Issue {
        }

        /** The counter must be rebuilt before anything is sold from it. */
        record Untrusted() implements Issue {
        }
    }

    /** The redemption step's answer. */
    sealed interface Redeem {
        /**
         * This attempt may write the order under {@code loadEpoch}; {@code attempt} ends it. The order is the
         * hold's: its {@code userId} and {@code quantity}.
         */
        record Started(long loadEpoch, long generation, long remaining, String attempt, String userId, int quantity)
                implements Redeem {
        }

        /** The token's user or quantity is not its hold's: nothing changed. */
        record Mismatch() implements Redeem {
        }

        record Absent(String generation) implements Redeem {
        }

        record Ordering(String attempt, long attemptMillis, long nowMillis) implements Redeem {
        }

        record Expired() implements Redeem {
        }

        record Void() implements Redeem {
        }

        record Untrusted() implements Redeem {
        }
    }

    /** One sweep step: holds given back (and their units), holds looked at, attempts that outlived their deadline. */
    record Sweep(long given, long units, int lookedAt, Map<String, String> abandoned) {
    }

    private final StringRedisTemplate redis;
    private final SlotMovingRetry slotMovingRetry;
    private final String perUserTtlMillis;
    private final String takeRecordTtlMillis;
    private final String idempotencyTtlMillis;
    private final String ttlMillis;
    private final String graceMillis;
    private final String settleAfterMillis;
    private final String maxHolds;

    TokenHolds(StringRedisTemplate redis, StockSettings stock, PlacementSettings placement, TokenSettings tokens,
               SlotMovingRetry slotMovingRetry) {
        this.redis = redis;
        this.slotMovingRetry = slotMovingRetry;
        this.perUserTtlMillis = Long.toString(stock.perUserTtl().toMillis());
        this.takeRecordTtlMillis = Long.toString(placement.redis().takeRecordTtl().toMillis());
        this.idempotencyTtlMillis = Long.toString(stock.idempotencyTtl().toMillis());
        this.ttlMillis = Long.toString(tokens.ttl().toMillis());
        this.graceMillis = Long.toString(tokens.grace().toMillis());
        this.settleAfterMillis = Long.toString(tokens.settleAfter().toMillis());
        this.maxHolds = Long.toString(tokens.maxHolds());
    }

    /**
     * Takes the units for a token through the gate's take script, which records the hold in the same step. Not
     * sent again after a timed-out reply: the hold, if it was made, comes back at its expiry. The same issue sent
     * again (by Lettuce, after a reconnect) is answered from the take's record and the hold it made: the same
     * token, for the units already held.
     */
    Issue issue(String itemCode, String userId, int quantity, String tokenId) {
        var keys = new ArrayList<>(StockKeys.itemKeys(itemCode));
        keys.add(StockKeys.taken(itemCode, tokenId));
        keys.add(StockKeys.load(itemCode));
        keys.add(StockKeys.life(itemCode));
        keys.add(StockKeys.gate(itemCode));
        List<?> reply = redis(() -> slotMovingRetry.send(() -> redis.execute(TAKE, keys, Integer.toString(quantity),
                userId, tokenId, idempotencyTtlMillis, perUserTtlMillis, takeRecordTtlMillis, Gate.TOKEN.code(),
                ttlMillis, graceMillis, maxHolds)));
        return switch ((String) reply.get(0)) {
            case "TAKEN" -> {
                if (reply.size() < 5) {
                    // the take's record: this issue ran already (the same command sent again after a reconnect)
                    yield heldBefore(itemCode, userId, quantity, tokenId, number(reply, 1));
                }
                // a JWT's exp is in whole seconds: the token says the hold's expiry rounded down, never later
                yield new Issue.Held(number(reply, 1), number(reply, 2),
                        Instant.ofEpochSecond(Math.floorDiv(number(reply, 4), 1000)));
            }
            case "SOLD_OUT" -> new Issue.SoldOut(number(reply, 1));
            case "LIMIT" -> new Issue.LimitReached(number(reply, 3), number(reply, 4));
            case "WRONG_GATE" -> new Issue.WrongGate(Gate.fromColumn((String) reply.get(1)));
            case "HOLDS_FULL" -> new Issue.HoldsFull(number(reply, 1), number(reply, 2));
            case "UNKNOWN" -> new Issue.Unknown();
            case "UNTRUSTED" -> new Issue.Untrusted();
            default -> throw new IllegalStateException("unexpected reply from the stock gate: " + reply);
        };
    }

    /**
     * The hold an earlier run of this very issue made, as its first answer said it: same generation, same expiry,
     * so the token signed for it is the one the first run would have been answered with.
     */
    private Issue heldBefore(String itemCode, String userId, int quantity, String tokenId, long remaining) {
        Object hold = redis(() -> redis.opsForHash().get(TokenKeys.holds(itemCode), tokenId));
        // state:quantity:generation:expires:attempt:remaining:user (take-stock.lua)
        String[] parts = hold == null ? new String[0] : hold.toString().split(":", 7);
        if (parts.length < 7 || !parts[1].equals(Integer.toString(quantity)) || !parts[6].equals(userId)) {
            // its units came back or are an order already, or the id was another's: never for a replay in time
            throw new IllegalStateException("token id " + tokenId + " was taken before, and its hold is "
                    + (hold == null ? "gone" : "another's: " + hold));
        }
        return new Issue.Held(remaining, Long.parseLong(parts[2]),
                Instant.ofEpochSecond(Math.floorDiv(Long.parseLong(parts[3]), 1000)));
    }

    /**
     * Moves the token's hold from issued to ordering, if it is still the token's and holds what the token says (its
     * user, its quantity; the item is the hold's key).
     */
    Redeem startOrdering(PurchaseToken token) {
        String itemCode = token.itemCode();
        List<?> reply = redis(() -> slotMovingRetry.send(() -> redis.execute(REDEEM, List.of(
                        StockKeys.counter(itemCode), StockKeys.generation(itemCode), StockKeys.load(itemCode),
                        StockKeys.life(itemCode), TokenKeys.holds(itemCode)), token.id(), graceMillis, token.userId(),
                Integer.toString(token.quantity()))));
        return switch ((String) reply.get(0)) {
            case "STARTED" -> new Redeem.Started(number(reply, 1), number(reply, 2), number(reply, 3),
                    (String) reply.get(4), (String) reply.get(6), Math.toIntExact(number(reply, 5)));
            case "MISMATCH" -> new Redeem.Mismatch();
            case "ABSENT" -> new Redeem.Absent((String) reply.get(1));
            case "ORDERING" -> new Redeem.Ordering((String) reply.get(1), number(reply, 1), number(reply, 2));
            case "EXPIRED" -> new Redeem.Expired();
            case "VOID" -> new Redeem.Void();
            case "UNTRUSTED" -> new Redeem.Untrusted();
            default -> throw new IllegalStateException("unexpected reply from the token gate: " + reply);
        };
    }

    /** The token's order is in the database: its hold is gone, its units are the order's. */
    void written(String itemCode, String tokenId) {
        redis(() -> redis.execute(FINISH, List.of(TokenKeys.holds(itemCode), TokenKeys.expiry(itemCode)), tokenId,
                "written", ""));
    }

    /**
     * The attempt did not write the order: the hold is issued again (its units stay held), unless another attempt
     * took it over or it is gone.
     *
     * @return whether the hold was issued again
     */
    boolean retry(String itemCode, String tokenId, String attempt) {
        Long changed = redis(() -> redis.execute(FINISH, List.of(TokenKeys.holds(itemCode),
                TokenKeys.expiry(itemCode)), tokenId, "retry", attempt));
        return changed != null && changed == 1L;
    }

    /** Gives back the units of up to {@link #SWEEP_BATCH} holds past their expiry, and names abandoned attempts. */
    Sweep expire(String itemCode) {
        List<?> reply = redis(() -> redis.execute(EXPIRE, List.of(StockKeys.counter(itemCode),
                StockKeys.generation(itemCode), StockKeys.load(itemCode), TokenKeys.holds(itemCode),
                TokenKeys.expiry(itemCode)), Integer.toString(SWEEP_BATCH), settleAfterMillis));
        var abandoned = new java.util.LinkedHashMap<String, String>();
        for (int i = 3; i + 1 < reply.size(); i += 2) {
            abandoned.put((String) reply.get(i), (String) reply.get(i + 1));
        }
        return new Sweep(number(reply, 0), number(reply, 1), Math.toIntExact(number(reply, 2)), abandoned);
    }

    /** Every hold of the item: token id → its hold. */
    Map<Object, Object> all(String itemCode) {
        return redis(() -> redis.opsForHash().entries(TokenKeys.holds(itemCode)));
    }

    private static long number(List<?> reply, int index) {
        return Long.parseLong((String) reply.get(index));
    }

    static <T> T redis(Supplier<T> call) {
        try {
            return call.get();
        } catch (DataAccessException e) {
            throw new ProblemException(ProblemType.REDIS_UNAVAILABLE, "Redis did not answer", e);
        }
    }
}
