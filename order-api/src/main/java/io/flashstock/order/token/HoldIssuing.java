package io.flashstock.order.token;

import io.flashstock.order.placement.core.PlacementSettings;
import io.flashstock.order.placement.gate.SlotMovingRetry;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.RedisScripts;
import io.flashstock.order.stock.StockKeys;
import io.flashstock.order.stock.StockSettings;
import io.flashstock.order.token.TokenHolds.Issue;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.flashstock.order.token.TokenHolds.number;
import static io.flashstock.order.token.TokenHolds.redis;

/** {@link TokenHolds}' first step: a hold issued by the gate's own take script, which records it in the same step. */
@Component
class HoldIssuing {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> TAKE = RedisScripts.loadWithLife("take-stock.lua", List.class);

    private final StringRedisTemplate redis;
    private final SlotMovingRetry slotMovingRetry;
    private final String perUserTtlMillis;
    private final String takeRecordTtlMillis;
    private final String idempotencyTtlMillis;
    private final String ttlMillis;
    private final String graceMillis;
    private final String maxHolds;

    HoldIssuing(StringRedisTemplate redis, StockSettings stock, PlacementSettings placement, TokenSettings tokens,
                SlotMovingRetry slotMovingRetry) {
        this.redis = redis;
        this.slotMovingRetry = slotMovingRetry;
        this.perUserTtlMillis = Long.toString(stock.perUserTtl().toMillis());
        this.takeRecordTtlMillis = Long.toString(placement.redis().takeRecordTtl().toMillis());
        this.idempotencyTtlMillis = Long.toString(stock.idempotencyTtl().toMillis());
        this.ttlMillis = Long.toString(tokens.ttl().toMillis());
        this.graceMillis = Long.toString(tokens.grace().toMillis());
        this.maxHolds = Long.toString(tokens.maxHolds());
    }

    /** See {@link TokenHolds#issue}. */
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
}
