package io.flashstock.order.stock;

import io.flashstock.order.web.ProblemException;
import io.flashstock.order.web.ProblemType;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/** The administrative side of an item's Redis keys: set, read and remove them. */
@Component
class StockCounters {

    /** Redis snapshot of an item; a null field means the key is absent. */
    record Snapshot(Long remaining, Long generation, Long perUserLimit) {
    }

    /** Per-user counters written per pipeline, so a big sale's reload never sends one huge batch. */
    private static final int USER_BATCH = 1_000;
    private static final RedisScript<Long> LOAD = RedisScripts.load("load-stock.lua",
            Long.class);

    private final StringRedisTemplate redis;

    StockCounters(StringRedisTemplate redis) {
        this.redis = redis;
    }

    /**
     * Sets counter, generation and limit in one atomic step.
     *
     * @return false when Redis already holds a newer generation (a later reset got there first)
     */
    boolean load(String itemCode, long remaining, long generation, Integer perUserLimit) {
        return runLoad(itemCode, Long.toString(remaining), generation,
                perUserLimit == null ? "" : perUserLimit.toString());
    }

    /**
     * Removes the counter and limit of an item whose gate is now the database, so the Redis gate finds no
     * stock for it, and records the generation, so that a late load of an older reset cannot bring them back.
     *
     * @return false when Redis already holds a newer generation (a later reset got there first)
     */
    boolean unload(String itemCode, long generation) {
        return runLoad(itemCode, "", generation, "");
    }

    private boolean runLoad(String itemCode, String remaining, long generation, String perUserLimit) {
        var keys = new ArrayList<>(StockKeys.itemKeys(itemCode));
        keys.add(StockKeys.inDoubt(itemCode));
        keys.add(StockKeys.load(itemCode));
        Long applied = redis(() -> redis.execute(LOAD, keys, remaining, Long.toString(generation), perUserLimit,
                UUID.randomUUID().toString()));
        return applied != null && applied == 1L;
    }

    /** Writes the units each user bought in a generation, so the per-user limit holds after a reload. */
    void loadBought(String itemCode, long generation, Map<String, Long> boughtPerUser, Duration ttl) {
        var entries = new ArrayList<>(boughtPerUser.entrySet());
        for (int from = 0; from < entries.size(); from += USER_BATCH) {
            var batch = entries.subList(from, Math.min(from + USER_BATCH, entries.size()));
            redis(() -> redis.executePipelined((RedisCallback<Object>) connection -> {
                batch.forEach(e -> connection.stringCommands().pSetEx(utf8(StockKeys.bought(itemCode, generation,
                        e.getKey())), ttl.toMillis(), utf8(e.getValue().toString())));
                return null;
            }));
        }
    }

    Snapshot read(String itemCode) {
        List<String> values = redis(() -> redis.opsForValue().multiGet(StockKeys.itemKeys(itemCode)));
        return new Snapshot(number(values.get(0)), number(values.get(1)), number(values.get(2)));
    }

    /** Removes the item's counter, generation, limit, orders in doubt and the given idempotency keys. */
    void delete(String itemCode, Collection<String> idempotencyKeys) {
        var keys = new ArrayList<>(StockKeys.itemKeys(itemCode));
        keys.add(StockKeys.inDoubt(itemCode));
        idempotencyKeys.forEach(key -> keys.add(StockKeys.idempotency(itemCode, key)));
        redis(() -> redis.delete(keys));
    }

    private static byte[] utf8(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    private static Long number(String value) {
        return value == null ? null : Long.valueOf(value);
    }

    private static <T> T redis(Supplier<T> call) {
        try {
            return call.get();
        } catch (DataAccessException e) {
            throw new ProblemException(ProblemType.REDIS_UNAVAILABLE, "Redis did not answer", e);
        }
    }
}
