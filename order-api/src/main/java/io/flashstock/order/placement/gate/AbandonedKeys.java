package io.flashstock.order.placement.gate;

import io.flashstock.order.placement.core.FirstAnswer;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.stock.RedisScripts;
import io.flashstock.order.stock.StockKeys;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

import java.util.List;

/**
 * The Idempotency-Key of a first attempt that took stock and was never committed: whether anything of that attempt
 * is left in Redis that could still act, and forgetting the key once nothing is, so that a retry is served.
 */
@Component
public class AbandonedKeys {

    private static final RedisScript<Long> FORGET_ABANDONED =
            RedisScripts.load("forget-abandoned.lua", Long.class);

    private final StringRedisTemplate redis;

    AbandonedKeys(StringRedisTemplate redis) {
        this.redis = redis;
    }

    /** Whether something of the order's attempt is left that could still write it or give its stock back. */
    public boolean mayStillAct(String itemCode, String orderCode) {
        return Boolean.TRUE.equals(redis.hasKey(StockKeys.taken(itemCode, orderCode)))
                || redis.opsForHash().hasKey(StockKeys.inDoubt(itemCode), orderCode);
    }

    /**
     * Forgets the key of an order that took stock and was never committed, if nothing of its attempt is left
     * that could still write it or give its stock back (its take's record, an in-doubt record).
     *
     * @return whether the key was forgotten; false while the attempt may still act, or when the key changed
     */
    public boolean forgetAbandoned(OrderCommand command, FirstAnswer first) {
        String item = command.itemCode();
        Long forgotten = redis.execute(FORGET_ABANDONED, List.of(StockKeys.taken(item, first.orderCode()),
                        StockKeys.inDoubt(item), StockKeys.idempotency(item, command.idempotencyKey())),
                first.orderCode(), first.stored());
        return forgotten != null && forgotten == 1L;
    }
}
