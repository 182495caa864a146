package io.flashstock.order.placement.core;

import io.flashstock.order.stock.Gate;
import org.springframework.data.redis.core.script.RedisScript;

import java.util.List;

/**
 * What an order of a two-step gate carries besides its body (a waiting room's admission, say): the gate it
 * comes through, and the scripts that wrap the Redis gate's take and give-back, so that the pass is checked and
 * used in the same atomic step as the stock is taken, and restored in the same step as the stock is given back.
 * Its keys go after the Redis gate's, and share the item's hash tag.
 */
public interface GatePass {

    Gate gate();

    /** Keys the wrapped scripts read after the Redis gate's own. */
    List<String> keys();

    /** take-stock.lua wrapped: the same keys and arguments, then {@link #keys()}. */
    @SuppressWarnings("rawtypes")
    RedisScript<List> take();

    /** give-back.lua wrapped: the same keys and arguments, then {@link #keys()}. */
    RedisScript<Long> giveBack();

    /**
     * What an order held in doubt records of its pass, without ':', so that any order-api can restore the pass
     * ({@link RecordedPasses}) and give the order's stock back with it.
     */
    String recorded();
}
