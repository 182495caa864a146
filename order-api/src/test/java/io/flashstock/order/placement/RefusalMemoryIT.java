package io.flashstock.order.placement;

import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.StockKeys;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.DefaultTransactionStatus;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The crowd after a sell-out is answered from each order-api's memory, with the gate's own answer and no take sent
 * to Redis; and units that come back by any of the paths that raise or replace a counter are sold. A remembered
 * refusal lives 10 minutes here, so only the notice of the raise can end it within the tests' deadlines.
 */
class RefusalMemoryIT extends OrderApiIntegrationTest {

    private static final int CROWD = 100;
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final String TOKEN_KEY = Base64.getEncoder().encodeToString(
            "refusal-memory-it-key-0123456789".getBytes(StandardCharsets.US_ASCII));

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "refusalmemory");
        registry.add("flashstock.order.refusal-memory.ttl", () -> "10m");
        registry.add("flashstock.token.key", () -> TOKEN_KEY);
        registry.add("flashstock.token.ttl", () -> "3s");
        registry.add("flashstock.token.grace", () -> "0s");
        registry.add("flashstock.token.sweep-every", () -> "100ms");
    }

    @TestConfiguration
    static class Commits {
        @Bean
        HeldFailingCommits transactionManager(DataSource dataSource) {
            return new HeldFailingCommits(dataSource);
        }
    }

    /** The real transaction manager, whose next commit can be held, then fail without committing. */
    static class HeldFailingCommits extends JdbcTransactionManager {

        private volatile boolean armed;
        private final CountDownLatch held = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);

        HeldFailingCommits(DataSource dataSource) {
            super(dataSource);
            setRollbackOnCommitFailure(true);
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            if (!armed) {
                super.doCommit(status);
                return;
            }
            armed = false;
            held.countDown();
            try {
                released.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            doRollback(status);
            throw new TransactionSystemException("injected: commit failed, nothing committed");
        }
    }

    @Autowired
    private MeterRegistry meters;
    @Autowired
    private HeldFailingCommits commits;

    @Test
    void theCrowdAfterASellOutIsAnsweredFromMemoryAsTheGateAnswers() {
        String item = uniqueItem("crowd");
        setStock(item, 2, null);
        assertThat(api().order(item, "ann", 2).status()).isEqualTo(200);

        var fromRedis = api().order(item, "bob", 1);
        assertThat(fromRedis.status()).isEqualTo(409);
        assertThat(fromRedis.code()).isEqualTo("SOLD_OUT");
        answeredFromMemory(fromRedis, () -> api().order(item, "bob", 1));

        long takes = takes();
        assertThat(api().order(item, "bob", 1, "Idempotency-Key", "k-1").code())
                .as("an order with a key is asked for: its first answer comes before the sell-out").isEqualTo("SOLD_OUT");
        assertThat(takes()).isEqualTo(takes + 1);
    }

    @Test
    void unitsGivenBackByAFailedCommitAreSold() throws Exception {
        String item = uniqueItem("commit-fails");
        setStock(item, 1, null);
        commits.armed = true;
        var first = CompletableFuture.supplyAsync(() -> api().order(item, "ann", 1));
        assertThat(commits.held.await(20, TimeUnit.SECONDS)).as("the order's commit is held").isTrue();
        assertThat(redisCounter(item)).isZero();

        soldOutFromMemory(item);
        commits.released.countDown();

        assertThat(first.get(20, TimeUnit.SECONDS).code()).isEqualTo("DATABASE_UNAVAILABLE");
        sellsAgain(item, 1);
    }

    @Test
    void unitsOfAnExpiredTokenAreIssuedAgain() {
        String item = uniqueItem("token-expires");
        setStock(item, 1, null, Gate.TOKEN);
        assertThat(issue(item, "ann").status()).isEqualTo(201);
        var fromRedis = issue(item, "bob");
        assertThat(fromRedis.code()).isEqualTo("SOLD_OUT");
        answeredFromMemory(fromRedis, () -> issue(item, "bob"));

        // the token lives 3 s: its unit comes back at its expiry, and is issued again
        await("the expired token's unit issued again").atMost(DEADLINE).pollInterval(Duration.ofMillis(20))
                .until(() -> issue(item, "carl").status() == 201);
        assertThat(issue(item, "dora").code()).isEqualTo("SOLD_OUT");
    }

    @Test
    void unitsAReloadCountsBackAreSold() {
        String item = uniqueItem("reload");
        sellOutWithAUnitLost(item);

        assertThat(reload(item).status()).isEqualTo(200);

        sellsAgain(item, 1);
    }

    @Test
    void unitsTheEngineCountsBackWhenItRebuildsALostCounterAreSold() {
        String item = uniqueItem("heal");
        sellOutWithAUnitLost(item);
        redis.delete(StockKeys.counter(item));

        // an order with a key always reaches Redis: it finds no counter, and the engine rebuilds it
        var keyed = api().order(item, "erin", 1, "Idempotency-Key", "heal-1");
        assertThat(keyed.code()).isEqualTo("STOCK_RELOADING");

        sellsAgain(item, 1);
    }

    @Test
    void aResetSellsAgain() {
        String item = uniqueItem("reset");
        setStock(item, 1, null);
        assertThat(api().order(item, "ann", 1).status()).isEqualTo(200);
        soldOutFromMemory(item);

        setStock(item, 2, null);

        sellsAgain(item, 2);
    }

    @Test
    void anItemSoldThroughAnotherGateOrUnknownIsAnsweredFromMemoryUntilItsReset() {
        String rowItem = uniqueItem("row");
        setStock(rowItem, 1, null, Gate.DB_LOCK);
        var wrongGate = api().order(rowItem, "ann", 1);
        assertThat(wrongGate.code()).isEqualTo("WRONG_GATE");
        answeredFromMemory(wrongGate, () -> api().order(rowItem, "ann", 1));
        String unknownItem = uniqueItem("unknown");
        var unknown = api().order(unknownItem, "ann", 1);
        assertThat(unknown.code()).isEqualTo("UNKNOWN_ITEM");
        answeredFromMemory(unknown, () -> api().order(unknownItem, "ann", 1));

        setStock(rowItem, 1, null, Gate.REDIS);
        setStock(unknownItem, 1, null);

        sellsAgain(rowItem, 1);
        sellsAgain(unknownItem, 1);
    }

    @Test
    void aSubscriptionLostAndMadeAgainForgetsWhatWasRemembered() {
        String item = uniqueItem("resubscribed");
        setStock(item, 1, null);
        assertThat(api().order(item, "ann", 1).status()).isEqualTo(200);
        soldOutFromMemory(item);

        // a unit comes back while the notice cannot reach this order-api: raised without one, then the subscription
        // is cut (Lettuce reconnects and subscribes again)
        redis.opsForValue().increment(StockKeys.counter(item));
        redis.execute((RedisCallback<Void>) connection -> {
            for (var client : connection.serverCommands().getClientList()) {
                if (client.getFlags().contains("P")) {
                    String[] address = client.getAddressPort().split(":");
                    connection.serverCommands().killClient(address[0], Integer.parseInt(address[1]));
                }
            }
            return null;
        });

        sellsAgain(item, 1);
    }

    /**
     * {@code CROWD} more requests answered exactly as {@code fromRedis} was, none of them sent to Redis: no take
     * timed, and each counted as recalled from memory.
     */
    private void answeredFromMemory(ApiClient.Answer fromRedis, Supplier<ApiClient.Answer> request) {
        long takesBefore = takes();
        double recalledBefore = recalled();
        for (int i = 0; i < CROWD; i++) {
            var answer = request.get();
            assertThat(answer.status()).isEqualTo(fromRedis.status());
            assertThat(answer.json()).isEqualTo(fromRedis.json());
        }
        assertThat(takes()).as("takes sent to Redis for the crowd").isEqualTo(takesBefore);
        assertThat(recalled() - recalledBefore).isEqualTo(CROWD);
    }

    private void soldOutFromMemory(String item) {
        var fromRedis = api().order(item, "crowd", 1);
        assertThat(fromRedis.code()).as("%s", fromRedis).isEqualTo("SOLD_OUT");
        answeredFromMemory(fromRedis, () -> api().order(item, "crowd", 1));
    }

    /** Three units, one taken by an order never written (its order-api died), two sold: sold out from memory. */
    private void sellOutWithAUnitLost(String item) {
        setStock(item, 3, null);
        redis.opsForValue().decrement(StockKeys.counter(item));
        assertThat(api().order(item, "ann", 1).status()).isEqualTo(200);
        assertThat(api().order(item, "bob", 1).status()).isEqualTo(200);
        soldOutFromMemory(item);
    }

    /** The {@code units} that came back are sold, promptly, and then the item is sold out again. */
    private void sellsAgain(String item, int units) {
        long before = orderCount(item);
        await("a unit that came back sold").atMost(DEADLINE).pollInterval(Duration.ofMillis(20))
                .until(() -> api().order(item, "buyer", 1).status() == 200);
        for (int i = 1; i < units; i++) {
            assertThat(api().order(item, "buyer-" + i, 1).status()).isEqualTo(200);
        }
        assertThat(api().order(item, "late", 1).code()).isEqualTo("SOLD_OUT");
        assertThat(orderCount(item) - before).isEqualTo(units);
    }

    private ApiClient.Answer issue(String item, String user) {
        return api().post(GateEndpoints.TOKEN, ApiClient.orderJson(item, user, 1));
    }

    private long takes() {
        return meters.get("flashstock.order.redis").timer().count();
    }

    /** Refusals answered from memory so far (none without the meter). */
    private double recalled() {
        var recalled = meters.find("flashstock.order.refusals.recalled").counter();
        return recalled == null ? 0 : recalled.count();
    }
}
