package io.flashstock.order.stock;

import io.flashstock.order.ApiClient;
import io.flashstock.order.HoldingTransactions;
import io.flashstock.order.OrderApiApplication;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.refusal.Refusal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.bean.override.mockito.MockitoSpyBean;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doCallRealMethod;
import static org.mockito.Mockito.doThrow;

/**
 * Never more sold than the stock while the stock is rebuilt: a reload or reset racing an order between its take
 * (Redis) and its commit (MariaDB), a reload by a second order-api, a reset whose Redis load fails, and a counter
 * that Redis restored stale. The races are forced with a transaction manager that holds one order's transaction
 * at its begin or its commit.
 */
@Import(HoldingTransactions.Installed.class)
class StockRebuildRaceIT extends OrderApiIntegrationTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);
    /** The run id of a Redis process that is not the one running: a counter restored from an earlier life. */
    private static final String EARLIER_LIFE = "0123456789abcdef0123456789abcdef01234567";

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "rebuild");
    }

    @Autowired
    private HoldingTransactions transactions;
    @Autowired
    private Environment environment;
    @MockitoSpyBean
    private StockCounters counters;

    private final ExecutorService clients = Executors.newCachedThreadPool();

    @AfterEach
    void releaseAll() {
        transactions.release();
        clients.shutdownNow();
    }

    @Test
    void aReloadWaitsForAnOrderThatTookStockAndIsCommitting() throws Exception {
        String item = uniqueItem("reload-commit");
        setStock(item, 1, null);

        transactions.holdNext(HoldingTransactions.At.COMMIT);
        var first = async(() -> api().order(item, "ann", 1));
        transactions.awaitHeld();
        var reload = async(() -> reload(item));
        // the reload either finished without waiting for the order, or waits for its row lock
        await().atMost(DEADLINE).until(() -> reload.isDone() || fenceWaiting());
        transactions.release();
        var firstAnswer = first.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        var reloaded = reload.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        var second = api().order(item, "bob", 1);

        assertThat(orderedQuantity(item)).as("units sold of 1 (answers: %s, %s)", firstAnswer, second)
                .isLessThanOrEqualTo(1);
        assertThat(firstAnswer.status()).as("%s", firstAnswer).isEqualTo(200);
        assertThat(reloaded.status()).as("%s", reloaded).isEqualTo(200);
        assertThat(reloaded.json().get("redisRemaining").asLong()).as("counted the order it waited for").isZero();
        assertThat(second.code()).isEqualTo("SOLD_OUT");
    }

    @Test
    void anOrderTakenBeforeAReloadThatCountedWithoutItIsNotWritten() throws Exception {
        String item = uniqueItem("reload-begin");
        setStock(item, 1, null);

        transactions.holdNext(HoldingTransactions.At.BEGIN);
        var first = async(() -> api().order(item, "ann", 1));
        transactions.awaitHeld();
        var reloaded = reload(item);
        transactions.release();
        var firstAnswer = first.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        var second = api().order(item, "bob", 1);

        assertThat(orderedQuantity(item)).as("units sold of 1 (answers: %s, %s)", firstAnswer, second)
                .isLessThanOrEqualTo(1);
        assertThat(reloaded.status()).as("%s", reloaded).isEqualTo(200);
        assertThat(firstAnswer.status()).as("%s", firstAnswer).isEqualTo(503);
        assertThat(firstAnswer.code()).isEqualTo("STOCK_RELOADING");
        assertThat(firstAnswer.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(second.status()).as("%s", second).isEqualTo(200);
        assertThat(redisCounter(item)).isZero();
    }

    @Test
    void anOrderTakenFromTheOldCounterIsNotWrittenAfterAReset() throws Exception {
        String item = uniqueItem("reset-begin");
        setStock(item, 5, null);

        transactions.holdNext(HoldingTransactions.At.BEGIN);
        var first = async(() -> api().order(item, "ann", 2));
        transactions.awaitHeld();
        setStock(item, 1, null);
        transactions.release();
        var firstAnswer = first.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        var second = api().order(item, "bob", 1);

        // no order came before the reset: whatever was written was sold against the reset's 1 unit
        assertThat(orderedQuantity(item)).as("units sold since the reset to 1 (answers: %s, %s)", firstAnswer,
                second).isLessThanOrEqualTo(1);
        assertThat(firstAnswer.code()).isEqualTo("STOCK_RELOADING");
        assertThat(second.status()).as("%s", second).isEqualTo(200);
    }

    @Test
    void aResetWaitsForAnOrderOfTheOldGenerationThatIsCommitting() throws Exception {
        String item = uniqueItem("reset-commit");
        setStock(item, 5, null);

        transactions.holdNext(HoldingTransactions.At.COMMIT);
        var first = async(() -> api().order(item, "ann", 2));
        transactions.awaitHeld();
        var reset = async(() -> setStock(item, 1, null));
        await().atMost(DEADLINE).until(() -> reset.isDone() || fenceWaiting());
        transactions.release();
        var firstAnswer = first.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        reset.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        var second = api().order(item, "bob", 1);
        var third = api().order(item, "carol", 1);

        assertThat(firstAnswer.status()).as("committed in generation 1, before the reset").isEqualTo(200);
        assertThat(orderedQuantity(item, 1)).isEqualTo(2);
        assertThat(orderedQuantity(item, 2)).isEqualTo(1);
        assertThat(second.status()).isEqualTo(200);
        assertThat(third.code()).isEqualTo("SOLD_OUT");
    }

    @Test
    void aResetWhoseRedisLoadFailedSellsNothingFromTheOldCounterAndIsHealed() {
        String item = uniqueItem("reset-unloaded");
        setStock(item, 5, null);
        assertThat(api().order(item, "ann", 1).status()).isEqualTo(200);

        doThrow(new RefusedException(Refusal.REDIS_UNAVAILABLE, "injected: Redis did not answer"))
                .doCallRealMethod().when(counters).load(eq(item), anyLong(), anyLong(), any(), anyLong(), any());
        var reset = api().put("/admin/items/" + item + "/stock", "{\"quantity\":1,\"perUserLimit\":null}",
                "Authorization", ADMIN);
        assertThat(reset.status()).as("%s", reset).isEqualTo(503);
        var answers = orderUntilSoldOut(item);

        assertThat(orderedQuantity(item, 1)).as("nothing of generation 1 after its reset (answers: %s)", answers)
                .isEqualTo(1);
        assertThat(orderedQuantity(item, 2)).as("generation 2 sold its 1 unit (answers: %s)", answers).isEqualTo(1);
        assertThat(answers.get(0).code()).isEqualTo("STOCK_RELOADING");
        assertThat(redis.opsForValue().get(StockKeys.generation(item))).isEqualTo("2");
    }

    @Test
    void aCounterRestoredFromAnEarlierLifeOfRedisIsRebuiltBeforeItSells() {
        String item = uniqueItem("restored");
        setStock(item, 2, null);
        assertThat(api().order(item, "ann", 1).status()).isEqualTo(200);
        // what an AOF that lost its last second shows after a crash: the counter before ann's take, loaded in
        // the life of a Redis process that is gone
        redis.opsForValue().set(StockKeys.counter(item), "2");
        redis.opsForValue().set(StockKeys.life(item), EARLIER_LIFE);

        var answers = orderUntilSoldOut(item);

        assertThat(orderedQuantity(item)).as("units sold of 2 (answers: %s)", answers).isEqualTo(2);
        assertThat(answers.get(0).code()).isEqualTo("STOCK_RELOADING");
        assertThat(redisCounter(item)).isZero();
    }

    @Test
    void aCounterWithoutItsLoadIsRebuiltBeforeItSells() {
        String item = uniqueItem("no-load");
        setStock(item, 2, 1);
        assertThat(api().order(item, "ann", 1).status()).isEqualTo(200);
        // evicted, or written by another version of order-api: the stock's load cannot be told
        redis.delete(StockKeys.load(item));

        var answers = orderUntilSoldOut(item);

        assertThat(answers.get(0).code()).isEqualTo("STOCK_RELOADING");
        assertThat(orderedQuantity(item)).as("units sold of 2 (answers: %s)", answers).isEqualTo(2);
        assertThat(redisCounter(item)).as("nothing taken by the refused takes").isZero();
    }

    @Test
    void aCounterLeftInRedisForAnItemSoldByItsRowIsRemoved() {
        String item = uniqueItem("stale-db-lock");
        setStock(item, 3, null, Gate.DB_LOCK);
        // what a reset to the db-lock gate leaves when its Redis step fails, or a stale copy of Redis
        redis.opsForValue().set(StockKeys.counter(item), "3");

        assertThat(api().order(item, "ann", 1).code()).isEqualTo("STOCK_RELOADING");
        await().atMost(DEADLINE).until(() -> redisCounter(item) == null);
        var answer = api().order(item, "ann", 1);
        assertThat(answer.code()).as("%s", answer).isEqualTo("WRONG_GATE");
        assertThat(orderedQuantity(item)).isZero();
    }

    @Test
    void aSecondReloadWhileOneRunsIsRefusedUntilItEnds() throws Exception {
        String item = uniqueItem("two-reloads");
        setStock(item, 3, null);
        assertThat(api().order(item, "ann", 1).status()).isEqualTo(200);

        transactions.holdNext(HoldingTransactions.At.BEGIN);
        var first = async(() -> reload(item));
        transactions.awaitHeld();
        var second = reload(item);
        transactions.release();

        assertThat(second.status()).as("%s", second).isEqualTo(503);
        assertThat(second.code()).isEqualTo("STOCK_RELOADING");
        assertThat(first.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(redisCounter(item)).isEqualTo(2);
    }

    @Test
    void aReloadByAnotherOrderApiWaitsForAnOrderThisOneIsCommitting() throws Exception {
        String item = uniqueItem("two-apis");
        setStock(item, 1, null);

        try (var other = anotherOrderApi()) {
            var otherApi = new ApiClient(other.getEnvironment().getProperty("local.server.port", Integer.class));
            transactions.holdNext(HoldingTransactions.At.COMMIT);
            var first = async(() -> api().order(item, "ann", 1));
            transactions.awaitHeld();
            var reload = async(() -> otherApi.post("/admin/items/" + item + "/stock/reload", "",
                    "Authorization", ADMIN));
            await().atMost(DEADLINE).until(() -> reload.isDone() || fenceWaiting());
            transactions.release();
            var firstAnswer = first.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            var reloaded = reload.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            var second = otherApi.order(item, "bob", 1);

            assertThat(orderedQuantity(item)).as("units sold of 1 (answers: %s, %s)", firstAnswer, second)
                    .isLessThanOrEqualTo(1);
            assertThat(firstAnswer.status()).as("%s", firstAnswer).isEqualTo(200);
            assertThat(reloaded.status()).as("%s", reloaded).isEqualTo(200);
            assertThat(second.code()).isEqualTo("SOLD_OUT");
        }
    }

    /**
     * A second order-api on the same database and Redis, with the real transaction manager; its settings are
     * arguments, which outrank its application.yml as they would on a command line.
     */
    private ConfigurableApplicationContext anotherOrderApi() {
        var arguments = new ArrayList<String>();
        for (String name : List.of("spring.datasource.url", "spring.datasource.username", "spring.datasource.password",
                "spring.data.redis.host", "spring.data.redis.port", "spring.kafka.bootstrap-servers",
                "flashstock.warmup.item-code", "flashstock.admin.token")) {
            arguments.add("--" + name + "=" + environment.getRequiredProperty(name));
        }
        arguments.add("--flashstock.warmup.enabled=false");
        arguments.add("--server.port=0");
        return new SpringApplicationBuilder(OrderApiApplication.class).run(arguments.toArray(String[]::new));
    }

    /** Orders one unit at a time until the item answers SOLD_OUT; every answer, in order. */
    private List<ApiClient.Answer> orderUntilSoldOut(String item) {
        var answers = new ArrayList<ApiClient.Answer>();
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(50)).until(() -> {
            var answer = api().order(item, "buyer-" + answers.size(), 1);
            answers.add(answer);
            assertThat(answer.status()).as("%s", answer).isIn(200, 409, 503);
            return "SOLD_OUT".equals(answer.code());
        });
        return answers;
    }

    /** Whether a statement of this test's database that raises a load epoch is running (waiting for a lock). */
    private boolean fenceWaiting() {
        return jdbc.sql("""
                        SELECT COUNT(*) FROM information_schema.PROCESSLIST
                        WHERE DB = DATABASE() AND (INFO LIKE 'UPDATE stock_item SET load_epoch%'
                                                   OR INFO LIKE 'INSERT INTO stock_item%')""")
                .query(Long.class).single() > 0;
    }

    private long orderedQuantity(String item, long generation) {
        return jdbc.sql("SELECT COALESCE(SUM(quantity), 0) FROM purchase_order WHERE item_code = ? AND generation = ?")
                .params(item, generation).query(Long.class).single();
    }

    private <T> CompletableFuture<T> async(Supplier<T> call) {
        return CompletableFuture.supplyAsync(call, clients);
    }
}
