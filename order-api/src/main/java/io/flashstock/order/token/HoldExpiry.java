package io.flashstock.order.token;

import io.flashstock.order.stock.RedisScripts;
import io.flashstock.order.stock.StockKeys;
import io.flashstock.order.token.TokenHolds.Sweep;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

import java.util.LinkedHashMap;
import java.util.List;

import static io.flashstock.order.token.TokenHolds.SWEEP_BATCH;
import static io.flashstock.order.token.TokenHolds.number;
import static io.flashstock.order.token.TokenHolds.redis;

/** {@link TokenHolds}' last step for a hold never used: its units given back at its expiry, the hold deleted. */
@Component
class HoldExpiry {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> EXPIRE = RedisScripts.load("token-expire.lua", List.class);

    private final StringRedisTemplate redis;
    private final String settleAfterMillis;

    HoldExpiry(StringRedisTemplate redis, TokenSettings tokens) {
        this.redis = redis;
        this.settleAfterMillis = Long.toString(tokens.settleAfter().toMillis());
    }

    /** See {@link TokenHolds#expire}. */
    Sweep expire(String itemCode) {
        List<?> reply = redis(() -> redis.execute(EXPIRE, List.of(StockKeys.counter(itemCode),
                StockKeys.generation(itemCode), StockKeys.load(itemCode), TokenKeys.holds(itemCode),
                TokenKeys.expiry(itemCode)), Integer.toString(SWEEP_BATCH), settleAfterMillis));
        var abandoned = new LinkedHashMap<String, String>();
        for (int i = 3; i + 1 < reply.size(); i += 2) {
            abandoned.put((String) reply.get(i), (String) reply.get(i + 1));
        }
        return new Sweep(number(reply, 0), number(reply, 1), Math.toIntExact(number(reply, 2)), abandoned);
    }
}
