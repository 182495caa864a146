package io.flashstock.order.placement.indoubt;

import io.flashstock.order.placement.gate.InDoubtEntry;
import io.flashstock.order.stock.RedisScripts;
import io.flashstock.order.stock.StockKeys;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The orders in doubt as Redis records them for every order-api ({@link InDoubtEntry}): the items listed with any
 * ({@link StockKeys#inDoubtItems()}), so that the settlement of abandoned ones looks at those alone, their entries,
 * Redis's clock, which aged them, and a lock per item, so that one order-api at a time settles an item's.
 */
@Component
class InDoubtRecords {

    private static final RedisScript<Long> RELEASE = RedisScripts.load("release-lock.lua", Long.class);

    /** An item's entries: those in this version's form, and the codes of those in another (an older version's). */
    record Entries(List<InDoubtEntry> readable, List<String> unreadable) {

        boolean none() {
            return readable.isEmpty() && unreadable.isEmpty();
        }
    }

    private final StringRedisTemplate redis;

    InDoubtRecords(StringRedisTemplate redis) {
        this.redis = redis;
    }

    /** Lists the item after an order of it was held in doubt, so that another order-api finds it. */
    void list(String itemCode) {
        redis.opsForSet().add(StockKeys.inDoubtItems(), itemCode);
    }

    Set<String> items() {
        Set<String> items = redis.opsForSet().members(StockKeys.inDoubtItems());
        return items == null ? Set.of() : items;
    }

    /** Whether the item has any order in doubt, listed or not. */
    boolean anyEntries(String itemCode) {
        return Boolean.TRUE.equals(redis.hasKey(StockKeys.inDoubt(itemCode)));
    }

    Entries entries(String itemCode) {
        Map<Object, Object> stored = redis.opsForHash().entries(StockKeys.inDoubt(itemCode));
        var readable = new ArrayList<InDoubtEntry>(stored.size());
        var unreadable = new ArrayList<String>();
        stored.forEach((code, value) -> InDoubtEntry.parse(itemCode, (String) code, (String) value)
                .ifPresentOrElse(readable::add, () -> unreadable.add((String) code)));
        return new Entries(readable, unreadable);
    }

    /**
     * Takes an item that has no orders in doubt off the list, then looks again and lists it again if one was held
     * meanwhile: an order is listed after it is recorded, so either that listing comes after this removal, or the
     * second look sees the order.
     */
    void unlist(String itemCode) {
        redis.opsForSet().remove(StockKeys.inDoubtItems(), itemCode);
        Long left = redis.opsForHash().size(StockKeys.inDoubt(itemCode));
        if (left != null && left > 0) {
            list(itemCode);
        }
    }

    /** Redis's clock (ms), by which the entries were stamped. */
    long nowMillis() {
        Long now = redis.execute((RedisCallback<Long>) connection ->
                connection.serverCommands().time(TimeUnit.MILLISECONDS));
        if (now == null) {
            throw new IllegalStateException("Redis answered TIME with nothing");
        }
        return now;
    }

    /** The item's settlement lock, if no other order-api holds it; it expires after {@code ttl}. */
    Optional<String> lock(String itemCode, Duration ttl) {
        String token = UUID.randomUUID().toString();
        Boolean taken = redis.opsForValue().setIfAbsent(settling(itemCode), token, ttl);
        return Boolean.TRUE.equals(taken) ? Optional.of(token) : Optional.empty();
    }

    void unlock(String itemCode, String token) {
        redis.execute(RELEASE, List.of(settling(itemCode)), token);
    }

    private static String settling(String itemCode) {
        return StockKeys.inDoubt(itemCode) + ":settling";
    }
}
