package io.flashstock.order.token;

import io.flashstock.order.ApiClient;
import io.flashstock.order.HoldingTransactions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reload racing tokens that hold units: never more sold than the stock, and exactly the stock once it runs out.
 * The races are forced with a transaction manager that holds one transaction at its begin or its commit: a
 * redemption's order, or the reload's fence.
 */
@Import(HoldingTransactions.Installed.class)
class TokenReloadRaceIT extends TokenGateTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "tokenrace");
        registry.add("flashstock.token.key", () -> KEY);
    }

    @Autowired
    private HoldingTransactions transactions;

    private final ExecutorService clients = Executors.newCachedThreadPool();

    @AfterEach
    void releaseAll() {
        transactions.release();
        clients.shutdownNow();
    }

    @Test
    void aReloadWhileARedemptionWaitsToWriteCountsItsTokenAsHeld() throws Exception {
        String item = uniqueItem("race-begin");
        tokenStock(item, 3, null);
        String first = token(item, "ann", 1);
        String second = token(item, "bob", 1);

        transactions.holdNext(HoldingTransactions.At.BEGIN);
        var redemption = async(() -> redeem(first, item, "ann", 1));
        transactions.awaitHeld();
        var reloaded = reload(item);
        transactions.release();
        var fenced = redemption.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

        assertThat(reloaded.status()).as("%s", reloaded).isEqualTo(200);
        long reloadedTo = redisCounter(item);
        assertThat(fenced.code()).as("%s", fenced).isEqualTo("STOCK_RELOADING");
        assertThat(redeem(first, item, "ann", 1).status()).as("the token is usable again").isEqualTo(200);
        assertThat(redeem(second, item, "bob", 1).status()).isEqualTo(200);
        sellOut(item);
        assertThat(orderedQuantity(item)).as("exactly the stock").isEqualTo(3);
        assertThat(reloadedTo).as("3 − 2 held by the tokens").isEqualTo(1);
        assertThat(redisCounter(item)).isZero();
    }

    @Test
    void aReloadWaitsForARedemptionCommittingAndCountsItOnce() throws Exception {
        String item = uniqueItem("race-commit");
        tokenStock(item, 3, null);
        String first = token(item, "ann", 1);
        String second = token(item, "bob", 1);

        transactions.holdNext(HoldingTransactions.At.COMMIT);
        var redemption = async(() -> redeem(first, item, "ann", 1));
        transactions.awaitHeld();
        var reload = async(() -> reload(item));
        // the reload's fence waits for the order's row lock; the order commits, its hold still in Redis
        awaitFenceWaiting(reload);
        transactions.release();
        var written = redemption.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        var reloaded = reload.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

        assertThat(written.status()).as("%s", written).isEqualTo(200);
        assertThat(reloaded.status()).as("%s", reloaded).isEqualTo(200);
        assertThat(redisCounter(item)).as("3 − 1 ordered − 1 held").isEqualTo(1);
        assertThat(redeem(second, item, "bob", 1).status()).isEqualTo(200);
        sellOut(item);
        assertThat(orderedQuantity(item)).as("exactly the stock").isEqualTo(3);
    }

    @Test
    void tokensIssuedWhileAReloadCountsAreHeldInTheCounterItLoads() throws Exception {
        String item = uniqueItem("race-issue");
        tokenStock(item, 3, null);
        String early = token(item, "ann", 1);

        // the reload's fence commits after the issue below, which the old counter still serves
        transactions.holdNext(HoldingTransactions.At.COMMIT);
        var reload = async(() -> reload(item));
        transactions.awaitHeld();
        String late = token(item, "bob", 2);
        transactions.release();
        var reloaded = reload.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

        assertThat(reloaded.status()).as("%s", reloaded).isEqualTo(200);
        long reloadedTo = redisCounter(item);
        assertThat(redeem(early, item, "ann", 1).status()).isEqualTo(200);
        assertThat(redeem(late, item, "bob", 2).status()).isEqualTo(200);
        sellOut(item);
        assertThat(orderedQuantity(item)).as("exactly the stock").isEqualTo(3);
        assertThat(reloadedTo).as("3 − 3 held by the tokens").isZero();
    }

    /** Issues and redeems one unit at a time until the item is sold out. */
    private void sellOut(String item) {
        List<ApiClient.Answer> answers = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            var issued = issue(item, "buyer-" + i, 1);
            answers.add(issued);
            if ("SOLD_OUT".equals(issued.code())) {
                return;
            }
            assertThat(issued.status()).as("%s", answers).isEqualTo(201);
            var order = redeem(issued.json().get("token").asString(), item, "buyer-" + i, 1);
            assertThat(order.status()).as("%s", order).isEqualTo(200);
        }
        throw new AssertionError("never sold out: " + answers);
    }

    private void awaitFenceWaiting(CompletableFuture<?> reload) {
        org.awaitility.Awaitility.await().atMost(DEADLINE).until(() -> reload.isDone() || jdbc.sql("""
                        SELECT COUNT(*) FROM information_schema.PROCESSLIST
                        WHERE DB = DATABASE() AND INFO LIKE 'UPDATE stock_item SET load_epoch%'""")
                .query(Long.class).single() > 0);
    }

    private <T> CompletableFuture<T> async(Supplier<T> call) {
        return CompletableFuture.supplyAsync(call, clients);
    }
}
