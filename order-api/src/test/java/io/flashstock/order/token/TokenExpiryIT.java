package io.flashstock.order.token;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Units of tokens never used come back when the tokens expire, exactly once, whatever the number of sweepers; an
 * attempt that died while ordering is settled. Tokens live 2 s here, and the sweeper runs every 100 ms.
 */
class TokenExpiryIT extends TokenGateTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "tokenexpiry");
        registry.add("flashstock.token.key", () -> KEY);
        registry.add("flashstock.token.ttl", () -> "2s");
        registry.add("flashstock.token.grace", () -> "200ms");
        registry.add("flashstock.token.sweep-every", () -> "100ms");
        registry.add("flashstock.token.settle-after", () -> "1s");
    }

    @Autowired
    private TokenExpirySweeper sweeper;
    @Autowired
    private MeterRegistry meters;
    /** Spring's scheduler: one thread, which InDoubtOrders runs on. */
    @Autowired
    @org.springframework.beans.factory.annotation.Qualifier("taskScheduler")
    private org.springframework.scheduling.TaskScheduler springScheduler;

    @Test
    void tokensComeBackWhileSpringsSchedulerIsStalled() throws Exception {
        String item = uniqueItem("token-stall");
        tokenStock(item, 5, null);
        token(item, "ann", 2);
        var stalled = new java.util.concurrent.CountDownLatch(1);
        var release = new java.util.concurrent.CountDownLatch(1);
        // what a database stall does to the orders in doubt: Spring's one scheduler thread waits
        springScheduler.schedule(() -> {
            stalled.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, java.time.Instant.now());
        try {
            assertThat(stalled.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

            await().atMost(DEADLINE).until(() -> redisCounter(item) == 5 && holds(item) == 0);
        } finally {
            release.countDown();
        }
    }

    @Test
    void theUnitsOfUnusedTokensComeBackAtTheirExpiry() {
        String item = uniqueItem("token-expiry");
        tokenStock(item, 5, 3);
        String token = token(item, "ann", 2);
        token(item, "bob", 1);
        assertThat(redisCounter(item)).isEqualTo(2);

        await().atMost(DEADLINE).until(() -> redisCounter(item) == 5 && holds(item) == 0);

        var late = redeem(token, item, "ann", 2);
        assertThat(late.status()).as("%s", late).isEqualTo(401);
        assertThat(late.code()).isEqualTo("TOKEN_EXPIRED");
        assertThat(sweeper.sweep(item)).as("nothing more to give back").isZero();
        assertThat(redisCounter(item)).isEqualTo(5);
        assertThat(orderCount(item)).isZero();
        assertThat(issue(item, "ann", 3).status()).as("ann's limit no longer counts the expired units")
                .isEqualTo(201);
    }

    @Test
    void manySweepersGiveEachExpiredTokenBackOnce() throws Exception {
        String item = uniqueItem("token-sweepers");
        int tokens = 60;
        double releasedBefore = released();
        tokenStock(item, tokens, null);
        for (int i = 0; i < tokens; i++) {
            token(item, "user-" + i, 1);
        }

        // four sweepers besides the scheduled one, each sweeping until the holds are gone
        ExecutorService pool = Executors.newFixedThreadPool(4);
        var given = new AtomicLong();
        try {
            var sweeps = new ArrayList<CompletableFuture<Void>>();
            for (int i = 0; i < 4; i++) {
                sweeps.add(CompletableFuture.runAsync(() -> {
                    long deadline = System.nanoTime() + DEADLINE.toNanos();
                    while (holds(item) > 0 && System.nanoTime() < deadline) {
                        given.addAndGet(sweeper.sweep(item));
                    }
                }, pool));
            }
            CompletableFuture.allOf(sweeps.toArray(CompletableFuture[]::new)).get(DEADLINE.toSeconds() + 5,
                    TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }

        assertThat(holds(item)).isZero();
        assertThat(redisCounter(item)).as("every unit back, none twice").isEqualTo(tokens);
        assertThat(released() - releasedBefore).as("units given back by all sweepers").isEqualTo(tokens);
        assertThat(given.get()).isLessThanOrEqualTo(tokens);
        assertThat(sweeper.sweep(item)).isZero();
        assertThat(redisCounter(item)).isEqualTo(tokens);
    }

    @Test
    void aHoldAnAttemptLeftOrderingIsSettledAndComesBack() {
        String item = uniqueItem("token-died");
        tokenStock(item, 3, null);
        String token = token(item, "ann", 2);
        // the order-api that was writing its order died: the hold stays ordering, and nothing else would end it
        ordering(item, idOf(token), redisMillis());

        await().atMost(DEADLINE).until(() -> redisCounter(item) == 3 && holds(item) == 0);

        assertThat(orderCount(item)).isZero();
        List<String> left = new ArrayList<>();
        redis.opsForZSet().range(TokenKeys.expiry(item), 0, -1).forEach(left::add);
        assertThat(left).isEmpty();
    }

    private double released() {
        return meters.get("flashstock.token.released").counter().count();
    }
}
