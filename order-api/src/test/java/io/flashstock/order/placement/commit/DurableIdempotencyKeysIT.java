package io.flashstock.order.placement.commit;

import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.stock.StockKeys;
import io.flashstock.order.stock.StockSettings;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An Idempotency-Key retried after Redis lost the item's keys (a restart without persistence; here the item's keys
 * are deleted, as the restart would) and the engine rebuilt the counter from the orders: the buyer who has an order
 * gets it back, though the stock or their per-user limit is used up, and a database lookup of keys happens only
 * while Redis cannot vouch for them.
 */
class DurableIdempotencyKeysIT extends OrderApiIntegrationTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);
    /** The run id of a Redis process that is not the one running: a counter restored from an earlier life. */
    private static final String EARLIER_LIFE = "0123456789abcdef0123456789abcdef01234567";

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "durablekeys");
    }

    @Autowired
    private MeterRegistry meters;
    @Autowired
    private StockSettings stock;

    @Test
    void aRetryAfterRedisLostItsKeysAndTheItemSoldOutGetsTheFirstOrder() {
        String item = uniqueItem("keys-lost-sold-out");
        setStock(item, 2, null);
        var first = api().order(item, "alice", 1, "Idempotency-Key", "alice-1");
        assertThat(first.status()).as("%s", first).isEqualTo(200);
        assertThat(api().order(item, "bob", 1).status()).isEqualTo(200);

        loseTheItemsKeysAndRebuild(item, 0);
        var retry = api().order(item, "alice", 1, "Idempotency-Key", "alice-1");

        assertThat(retry.status()).as("%s", retry).isEqualTo(200);
        assertThat(retry.json()).isEqualTo(first.json());
        assertThat(orderCount(item)).isEqualTo(2);
        assertThat(redisCounter(item)).isZero();
        var newKey = api().order(item, "carl", 1, "Idempotency-Key", "carl-1");
        assertThat(newKey.code()).as("%s", newKey).isEqualTo("SOLD_OUT");
        assertThat(redis.getExpire(StockKeys.keysLost(item), TimeUnit.MILLISECONDS))
                .as("looked up for the keys' lifetime from the rebuild")
                .isBetween(stock.idempotencyTtl().minusMinutes(1).toMillis(), stock.idempotencyTtl().toMillis());
    }

    @Test
    void aRetryAfterRedisCameBackFromAnEarlierLifeGetsTheFirstOrder() {
        String item = uniqueItem("keys-restored");
        setStock(item, 1, null);
        var first = api().order(item, "gus", 1, "Idempotency-Key", "gus-1");
        assertThat(first.status()).as("%s", first).isEqualTo(200);
        // restored from a file or a replica that missed the last second: the counter is of an earlier life, and the
        // key's first answer is lost
        redis.opsForValue().set(StockKeys.life(item), EARLIER_LIFE);
        redis.delete(StockKeys.idempotency(item, "gus-1"));
        assertThat(api().order(item, "someone", 1).code()).isEqualTo("STOCK_RELOADING");
        await("the engine rebuilds the counter").atMost(DEADLINE)
                .until(() -> !EARLIER_LIFE.equals(redis.opsForValue().get(StockKeys.life(item))));

        var retry = api().order(item, "gus", 1, "Idempotency-Key", "gus-1");

        assertThat(retry.status()).as("%s", retry).isEqualTo(200);
        assertThat(retry.json()).isEqualTo(first.json());
        assertThat(orderCount(item)).isEqualTo(1);
    }

    @Test
    void aRetryAfterRedisLostItsKeysAndTheUserReachedTheirLimitGetsTheFirstOrder() {
        String item = uniqueItem("keys-lost-limit");
        setStock(item, 10, 1);
        var first = api().order(item, "dora", 1, "Idempotency-Key", "dora-1");
        assertThat(first.status()).as("%s", first).isEqualTo(200);

        loseTheItemsKeysAndRebuild(item, 9);
        var retry = api().order(item, "dora", 1, "Idempotency-Key", "dora-1");
        var secondOrder = api().order(item, "dora", 1, "Idempotency-Key", "dora-2");
        var keyReused = api().order(item, "erik", 1, "Idempotency-Key", "dora-1");

        assertThat(retry.status()).as("%s", retry).isEqualTo(200);
        assertThat(retry.json()).isEqualTo(first.json());
        assertThat(secondOrder.code()).as("the limit still holds: %s", secondOrder)
                .isEqualTo("PER_USER_LIMIT_REACHED");
        assertThat(keyReused.code()).as("%s", keyReused).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(orderCount(item)).isEqualTo(1);
        assertThat(redisCounter(item)).isEqualTo(9);
    }

    @Test
    void aRetryOfTheLastSaleAfterRedisLostItsKeysAndAResetSoldOutTheNextGetsTheFirstOrder() {
        String item = uniqueItem("keys-lost-reset");
        setStock(item, 5, null);
        var first = api().order(item, "hal", 1, "Idempotency-Key", "hal-1");
        assertThat(first.status()).as("%s", first).isEqualTo(200);
        redis.delete(redis.keys(StockKeys.counter(item) + "*"));

        // the operator starts the next sale before any order found the counter missing
        setStock(item, 1, null);
        assertThat(api().order(item, "ida", 1).status()).isEqualTo(200);
        var retry = api().order(item, "hal", 1, "Idempotency-Key", "hal-1");

        assertThat(retry.status()).as("%s", retry).isEqualTo(200);
        assertThat(retry.json()).isEqualTo(first.json());
    }

    @Test
    void keysAreLookedUpInTheDatabaseOnlyWhileRedisCannotVouchForThem() {
        String item = uniqueItem("keys-lookups");
        setStock(item, 10, null);
        double before = lookups();

        assertThat(api().order(item, "fay", 1, "Idempotency-Key", "fay-1").status()).isEqualTo(200);
        assertThat(api().order(item, "fay", 1, "Idempotency-Key", "fay-1").status()).isEqualTo(200);
        assertThat(reload(item).status()).isEqualTo(200);
        assertThat(api().order(item, "fay", 1, "Idempotency-Key", "fay-2").status()).isEqualTo(200);
        setStock(item, 10, null);
        assertThat(api().order(item, "fay", 1, "Idempotency-Key", "fay-4").status()).isEqualTo(200);
        assertThat(lookups()).as("a new key, a replay, a reload or a reset in the same life of Redis: no lookup")
                .isEqualTo(before);
        assertThat(redis.hasKey(StockKeys.keysLost(item))).isFalse();

        loseTheItemsKeysAndRebuild(item, 9);
        assertThat(api().order(item, "fay", 1, "Idempotency-Key", "fay-3").status()).isEqualTo(200);
        assertThat(api().order(item, "fay", 1).status()).isEqualTo(200);
        assertThat(lookups()).as("a new key looked up once; an order without a key never").isEqualTo(before + 1);
        assertThat(api().order(item, "fay", 1, "Idempotency-Key", "fay-3").status()).isEqualTo(200);
        assertThat(lookups()).as("the key is in Redis again: no lookup").isEqualTo(before + 1);
    }

    /**
     * Deletes every Redis key of the item, as a restart without persistence loses them, and waits until the engine
     * rebuilt its counter from the orders (an order that finds it missing starts the rebuild, and is refused).
     */
    private void loseTheItemsKeysAndRebuild(String item, long remaining) {
        var keys = redis.keys(StockKeys.counter(item) + "*");
        assertThat(keys).isNotEmpty();
        redis.delete(keys);
        ApiClient.Answer refused = api().order(item, "someone", 1);
        assertThat(refused.code()).as("%s", refused).isEqualTo("STOCK_RELOADING");
        await("the engine rebuilds the counter").atMost(DEADLINE)
                .until(() -> Long.valueOf(remaining).equals(redisCounter(item)));
    }

    /** Idempotency-Keys looked up in the database, found or not. */
    private double lookups() {
        return meters.find("flashstock.order.idempotency.lookups").counters().stream()
                .mapToDouble(Counter::count).sum();
    }
}
