package io.flashstock.order.stock;

import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.function.Supplier;

/** The administrative side of an item's Redis keys: set, read and remove them. */
@Component
class StockCounters {

    private static final Logger log = LoggerFactory.getLogger(StockCounters.class);

    /** Redis snapshot of an item; a null field means the key is absent. */
    record Snapshot(Long remaining, Long generation, Long perUserLimit) {
    }

    /** Per-user counters written per pipeline, so a big sale's reload never sends one huge batch. */
    private static final int USER_BATCH = 1_000;
    private static final RedisScript<Long> LOAD = RedisScripts.loadWithLife("load-stock.lua", Long.class);
    private static final RedisScript<Long> TRUSTED_LOAD = RedisScripts.loadWithLife("trusted-load.lua", Long.class);
    private static final RedisScript<Long> KEYS_LOST = RedisScripts.loadWithLife("keys-lost.lua", Long.class);
    private static final RedisScript<Long> RELEASE = RedisScripts.load("release-lock.lua", Long.class);

    private final StringRedisTemplate redis;
    private final String perUserTtlMillis;

    StockCounters(StringRedisTemplate redis, StockSettings settings) {
        this.redis = redis;
        this.perUserTtlMillis = Long.toString(settings.perUserTtl().toMillis());
    }

    /**
     * Sets counter, generation and limit in one atomic step, under the load epoch the database recorded for
     * this load, and marks the counter as loaded in the life of the Redis process that runs the step.
     *
     * @return false when Redis holds this load or a later one already (a later reset or reload got there first)
     */
    boolean load(String itemCode, long remaining, long generation, Integer perUserLimit, long loadEpoch, Gate gate) {
        return load(itemCode, remaining, generation, perUserLimit, loadEpoch, gate, List.of());
    }

    /**
     * Like {@link #load(String, long, long, Integer, long, Gate)}, for a rebuild: the step loads the counter less
     * the units the item's tokens still hold ({@link HeldUnits}), except the holds whose orders,
     * {@code committedHolds}, are counted in {@code remaining} already.
     */
    boolean load(String itemCode, long remaining, long generation, Integer perUserLimit, long loadEpoch, Gate gate,
                 List<String> committedHolds) {
        return runLoad(itemCode, Long.toString(remaining), generation,
                perUserLimit == null ? "" : perUserLimit.toString(), loadEpoch, gate.code(), committedHolds);
    }

    /**
     * Removes the counter and limit of an item whose gate is now the database, so the Redis gate finds no
     * stock for it, and records the load epoch, so that a late load of an older reset cannot bring them back.
     *
     * @return false when Redis holds this load or a later one already
     */
    boolean unload(String itemCode, long generation, long loadEpoch) {
        return runLoad(itemCode, "", generation, "", loadEpoch, "", List.of());
    }

    private boolean runLoad(String itemCode, String remaining, long generation, String perUserLimit, long loadEpoch,
                            String gate, List<String> committedHolds) {
        var keys = new ArrayList<>(StockKeys.itemKeys(itemCode));
        keys.add(StockKeys.inDoubt(itemCode));
        keys.add(StockKeys.load(itemCode));
        keys.add(StockKeys.life(itemCode));
        keys.add(StockKeys.gate(itemCode));
        var args = new ArrayList<String>(6 + committedHolds.size());
        args.addAll(List.of(remaining, Long.toString(generation), perUserLimit, Long.toString(loadEpoch), gate,
                perUserTtlMillis));
        args.addAll(committedHolds);
        Long applied = redis(() -> redis.execute(LOAD, keys, args.toArray()));
        return applied != null && applied == 1L;
    }

    /**
     * The load epoch of the item's counter if the gate may sell from it (it exists, and was loaded in the life
     * of the Redis process that holds it); empty if not.
     */
    OptionalLong trustedLoad(String itemCode) {
        Long epoch = redis(() -> redis.execute(TRUSTED_LOAD, List.of(StockKeys.counter(itemCode),
                StockKeys.load(itemCode), StockKeys.life(itemCode))));
        return epoch == null || epoch < 0 ? OptionalLong.empty() : OptionalLong.of(epoch);
    }

    /**
     * Before a load that replaces a counter with orders behind it (a rebuild, a reset of an item sold before): if
     * Redis lost the item's keys (its counter is missing, or was loaded in an earlier life of Redis), marks its
     * Idempotency-Keys as lost for {@code keysLifetime} ({@link StockKeys#keysLost}).
     */
    void markKeysLost(String itemCode, Duration keysLifetime) {
        Long marked = redis(() -> redis.execute(KEYS_LOST, List.of(StockKeys.counter(itemCode),
                StockKeys.life(itemCode), StockKeys.keysLost(itemCode)), Long.toString(keysLifetime.toMillis())));
        if (marked != null && marked == 1L) {
            log.info("Redis lost the keys of {}: for {}, the keys' lifetime, an Idempotency-Key Redis does not have "
                    + "is looked up in the database before anything is sold to it", itemCode, keysLifetime);
        }
    }

    /**
     * Takes the item's reload lock for {@code ttl}, so that one order-api at a time rebuilds its counter.
     *
     * @return the token that releases it, or empty when another holds it
     */
    Optional<String> lockReload(String itemCode, Duration ttl) {
        String token = UUID.randomUUID().toString();
        Boolean taken = redis(() -> redis.opsForValue().setIfAbsent(StockKeys.reloading(itemCode), token, ttl));
        return Boolean.TRUE.equals(taken) ? Optional.of(token) : Optional.empty();
    }

    void unlockReload(String itemCode, String token) {
        redis(() -> redis.execute(RELEASE, List.of(StockKeys.reloading(itemCode)), token));
    }

    /**
     * Writes the units each user bought, under the load epoch about to be loaded, so the per-user limit holds
     * after a reload: no take uses these keys before the load that names the epoch.
     */
    void loadBought(String itemCode, long loadEpoch, Map<String, Long> boughtPerUser, Duration ttl) {
        var entries = new ArrayList<>(boughtPerUser.entrySet());
        for (int from = 0; from < entries.size(); from += USER_BATCH) {
            var batch = entries.subList(from, Math.min(from + USER_BATCH, entries.size()));
            redis(() -> redis.executePipelined((RedisCallback<Object>) connection -> {
                batch.forEach(e -> connection.stringCommands().pSetEx(utf8(StockKeys.bought(itemCode, loadEpoch,
                        e.getKey())), ttl.toMillis(), utf8(e.getValue().toString())));
                return null;
            }));
        }
    }

    Snapshot read(String itemCode) {
        List<String> values = redis(() -> redis.opsForValue().multiGet(StockKeys.itemKeys(itemCode)));
        return new Snapshot(number(values.get(0)), number(values.get(1)), number(values.get(2)));
    }

    /** Removes the item's counter, generation, limit, load, orders in doubt and the given idempotency keys. */
    void delete(String itemCode, Collection<String> idempotencyKeys) {
        var keys = new ArrayList<>(StockKeys.itemKeys(itemCode));
        keys.add(StockKeys.inDoubt(itemCode));
        keys.add(StockKeys.load(itemCode));
        keys.add(StockKeys.life(itemCode));
        keys.add(StockKeys.gate(itemCode));
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
            throw new RefusedException(Refusal.REDIS_UNAVAILABLE, "Redis did not answer", e);
        }
    }
}
