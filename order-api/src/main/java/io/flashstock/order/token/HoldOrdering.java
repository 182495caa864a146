package io.flashstock.order.token;

import io.flashstock.order.placement.gate.SlotMovingRetry;
import io.flashstock.order.stock.RedisScripts;
import io.flashstock.order.stock.StockKeys;
import io.flashstock.order.token.TokenHolds.Redeem;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

import java.util.List;

import static io.flashstock.order.token.TokenHolds.number;
import static io.flashstock.order.token.TokenHolds.redis;

/**
 * {@link TokenHolds}' second step: a hold goes to ordering while one attempt writes its order, and ends as that
 * order or is issued again.
 */
@Component
class HoldOrdering {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> REDEEM = RedisScripts.loadWithLife("token-redeem.lua", List.class);
    private static final RedisScript<Long> FINISH = RedisScripts.load("token-finish.lua", Long.class);

    private final StringRedisTemplate redis;
    private final SlotMovingRetry slotMovingRetry;
    private final String graceMillis;

    HoldOrdering(StringRedisTemplate redis, TokenSettings tokens, SlotMovingRetry slotMovingRetry) {
        this.redis = redis;
        this.slotMovingRetry = slotMovingRetry;
        this.graceMillis = Long.toString(tokens.grace().toMillis());
    }

    /** See {@link TokenHolds#startOrdering}. */
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

    /** See {@link TokenHolds#written}. */
    void written(String itemCode, String tokenId) {
        redis(() -> redis.execute(FINISH, List.of(TokenKeys.holds(itemCode), TokenKeys.expiry(itemCode)), tokenId,
                "written", ""));
    }

    /** See {@link TokenHolds#retry}. */
    boolean retry(String itemCode, String tokenId, String attempt) {
        Long changed = redis(() -> redis.execute(FINISH, List.of(TokenKeys.holds(itemCode),
                TokenKeys.expiry(itemCode)), tokenId, "retry", attempt));
        return changed != null && changed == 1L;
    }
}
