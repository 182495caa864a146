package io.flashstock.order.placement;

import io.flashstock.contract.StockDeducted;
import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.StockKeys;
import io.flashstock.testsupport.PrivateStack;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.DefaultTransactionStatus;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis and the database stopped under the service: private servers (never the shared ones), stopped
 * and started again by the tests.
 */
// its servers are gone after the class: close the context rather than keep it reconnecting in the cache
@DirtiesContext
class OutageIT extends OrderApiIntegrationTest {

    /** A dead dependency must answer well within this, not hang: pool and Redis time out in about 1 s. */
    private static final Duration FAST = Duration.ofSeconds(5);
    private static final Duration RECOVERY = Duration.ofSeconds(60);

    @RegisterExtension
    static final PrivateStack STACK = PrivateStack.create("order-api-outage").startingBeforeAll("redis", "mariadb");

    @TestConfiguration
    static class CommitFaults {
        @Bean
        DatabaseStoppingCommits transactionManager(DataSource dataSource) {
            return new DatabaseStoppingCommits(dataSource);
        }
    }

    /**
     * The real transaction manager, which can stop the private database once, just before a commit or after, or
     * stall the next commit on the server: a global read lock taken just before it makes the server hold the COMMIT
     * (waiting for the commit lock) until {@link #releaseTheCommit}.
     */
    static class DatabaseStoppingCommits extends JdbcTransactionManager {
        enum Stop { NEVER, BEFORE_COMMIT, AFTER_COMMIT, STALL_COMMIT }

        private final AtomicReference<Stop> next = new AtomicReference<>(Stop.NEVER);
        private volatile Connection commitLock;

        DatabaseStoppingCommits(DataSource dataSource) {
            super(dataSource);
            setRollbackOnCommitFailure(true);
        }

        void stopTheDatabase(Stop when) {
            next.set(when);
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            Stop stop = next.getAndSet(Stop.NEVER);
            if (stop == Stop.BEFORE_COMMIT) {
                STACK.stop("mariadb");
            }
            if (stop == Stop.STALL_COMMIT) {
                commitLock = globalReadLock();
            }
            super.doCommit(status);
            if (stop == Stop.AFTER_COMMIT) {
                STACK.stop("mariadb");
                throw new TransactionSystemException("injected: committed, then the database stopped before the reply");
            }
        }

        /** Lets the stalled commit finish on the server. */
        void releaseTheCommit() throws SQLException {
            try (Connection lock = commitLock) {
                if (lock != null) {
                    lock.createStatement().execute("UNLOCK TABLES");
                }
            } finally {
                commitLock = null;
            }
        }

        /** As the private server's root, which may: the application's user has no RELOAD privilege. */
        private static Connection globalReadLock() {
            try {
                Connection root = DriverManager.getConnection(STACK.jdbcUrl("orders"), "root", "");
                root.createStatement().execute("FLUSH TABLES WITH READ LOCK");
                return root;
            } catch (SQLException e) {
                throw new IllegalStateException("could not take the global read lock", e);
            }
        }
    }

    @Autowired
    private DatabaseStoppingCommits commits;
    @Autowired
    private MeterRegistry meters;

    @AfterEach
    void stopNothing() {
        commits.stopTheDatabase(DatabaseStoppingCommits.Stop.NEVER);
    }

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        privateInfrastructure(registry, STACK, () -> STACK.jdbcUrl("orders"));
    }

    @Test
    void withTheDatabaseDownOrdersAnswer503FastAndTheStockIsGivenBack() {
        String item = uniqueItem("db-down");
        setStock(item, 5, 2);

        STACK.stop("mariadb");
        ApiClient.Answer answer;
        Duration took;
        try {
            long started = System.nanoTime();
            answer = api().order(item, "olga", 2, "Idempotency-Key", "during-outage");
            took = Duration.ofNanos(System.nanoTime() - started);
        } finally {
            STACK.start("mariadb");
        }

        assertThat(answer.status()).as("%s", answer).isEqualTo(503);
        assertThat(answer.code()).isEqualTo("DATABASE_UNAVAILABLE");
        assertThat(answer.contentType()).isEqualTo("application/problem+json");
        assertThat(redisCounter(item)).as("given back").isEqualTo(5);
        assertThat(redis.opsForValue().get(StockKeys.bought(item, 1, "olga"))).isEqualTo("0");
        assertThat(redis.hasKey(StockKeys.idempotency(item, "during-outage"))).isFalse();
        assertThat(took).isLessThan(FAST);

        await("the pool reconnects").atMost(RECOVERY).pollInterval(Duration.ofMillis(500))
                .until(() -> api().get("/admin/items/" + item, "Authorization", ADMIN).status() == 200);
        assertThat(orderCount(item)).isZero();
        assertThat(outboxCount(item, StockDeducted.TYPE)).isZero();
        // the breaker refuses orders for a moment after the outage (flashstock.order.outage.retry-after)
        var retry = await("orders are admitted again").atMost(RECOVERY).pollInterval(Duration.ofMillis(200))
                .until(() -> api().order(item, "olga", 2, "Idempotency-Key", "during-outage"),
                        again -> again.status() != 503);
        assertThat(retry.status()).as("%s", retry).isEqualTo(200);
        assertThat(redisCounter(item)).isEqualTo(3);
        assertThat(orderCount(item)).isEqualTo(1);
    }

    @Test
    void anOrderWhoseCommitWasLostWithTheDatabaseGetsItsStockBackOnceTheDatabaseAnswers() {
        String item = uniqueItem("db-stops-mid-commit");
        setStock(item, 5, null);
        double givenBack = settled("given_back");

        commits.stopTheDatabase(DatabaseStoppingCommits.Stop.BEFORE_COMMIT);
        ApiClient.Answer answer;
        try {
            answer = api().order(item, "uma", 2, "Idempotency-Key", "lost-commit");
            assertThat(answer.status()).as("%s", answer).isEqualTo(503);
            assertThat(answer.code()).as("not an outage: the order may stand").isEqualTo("ORDER_OUTCOME_UNKNOWN");
            assertThat(answer.json().get("orderCode").asString()).isNotBlank();
            assertThat(answer.json().get("detail").asString()).isEqualTo(PlaceOrder.IN_DOUBT);
            assertThat(redisCounter(item)).as("kept while nobody can tell whether it committed").isEqualTo(3);
            assertThat(redis.opsForHash().size(StockKeys.inDoubt(item))).isEqualTo(1);
        } finally {
            STACK.start("mariadb");
        }

        await("the order is found absent and its stock given back").atMost(RECOVERY)
                .pollInterval(Duration.ofMillis(200)).until(() -> redisCounter(item) == 5);
        assertThat(redis.hasKey(StockKeys.inDoubt(item))).isFalse();
        assertThat(redis.hasKey(StockKeys.idempotency(item, "lost-commit"))).isFalse();
        assertThat(orderCount(item)).isZero();
        assertThat(settled("given_back") - givenBack).isEqualTo(1);
        var retry = await("orders are admitted again").atMost(RECOVERY).pollInterval(Duration.ofMillis(200))
                .until(() -> api().order(item, "uma", 2, "Idempotency-Key", "lost-commit"),
                        again -> again.status() != 503);
        assertThat(retry.status()).as("%s", retry).isEqualTo(200);
        assertThat(redisCounter(item)).isEqualTo(3);
        assertThat(orderCount(item)).isEqualTo(1);
    }

    @Test
    void aCommitStalledOnTheServerPastTheSocketTimeoutIsHeldInDoubtUntilTheServerDecides() throws Exception {
        String item = uniqueItem("commit-stalls");
        setStock(item, 5, null);
        double settledBefore = settled("committed") + settled("given_back");

        commits.stopTheDatabase(DatabaseStoppingCommits.Stop.STALL_COMMIT);
        try {
            var answer = api().order(item, "wes", 2, "Idempotency-Key", "stalled-commit");
            assertThat(answer.status()).as("%s", answer).isEqualTo(503);
            assertThat(answer.code()).as("the lookup waits for the commit still on the server, so it cannot tell")
                    .isEqualTo("ORDER_OUTCOME_UNKNOWN");
            assertThat(redisCounter(item)).as("kept while the commit may land").isEqualTo(3);
            assertThat(redis.opsForHash().size(StockKeys.inDoubt(item))).isEqualTo(1);
        } finally {
            commits.releaseTheCommit();
        }

        // MariaDB drops a commit whose client left while it waited; either way the stock must match the orders
        await("settled once the server has decided").atMost(RECOVERY).pollInterval(Duration.ofMillis(200))
                .until(() -> !redis.hasKey(StockKeys.inDoubt(item)));
        assertThat(settled("committed") + settled("given_back") - settledBefore).isEqualTo(1);
        assertThat(redisCounter(item)).as("what the server decided").isEqualTo(5 - orderedQuantity(item));
        var retry = api().order(item, "wes", 2, "Idempotency-Key", "stalled-commit");
        assertThat(retry.status()).as("%s", retry).isEqualTo(200);
        assertThat(orderCount(item)).isEqualTo(1);
        assertThat(redisCounter(item)).isEqualTo(3);
    }

    @Test
    void anOrderCommittedJustBeforeTheDatabaseStoppedStandsAndKeepsItsStock() {
        String item = uniqueItem("db-stops-after-commit");
        setStock(item, 5, null);
        double committed = settled("committed");

        commits.stopTheDatabase(DatabaseStoppingCommits.Stop.AFTER_COMMIT);
        try {
            var answer = api().order(item, "vera", 2, "Idempotency-Key", "committed-unconfirmed");
            assertThat(answer.status()).as("%s", answer).isEqualTo(503);
            assertThat(answer.code()).isEqualTo("ORDER_OUTCOME_UNKNOWN");
            assertThat(answer.json().get("detail").asString()).isEqualTo(PlaceOrder.IN_DOUBT);
            assertThat(redis.opsForHash().size(StockKeys.inDoubt(item))).isEqualTo(1);
        } finally {
            STACK.start("mariadb");
        }

        await("the order is found committed").atMost(RECOVERY).pollInterval(Duration.ofMillis(200))
                .until(() -> !redis.hasKey(StockKeys.inDoubt(item)));
        assertThat(settled("committed") - committed).isEqualTo(1);
        assertThat(redisCounter(item)).isEqualTo(3);
        assertThat(orderCount(item)).isEqualTo(1);
        var replay = await("orders are admitted again").atMost(RECOVERY).pollInterval(Duration.ofMillis(200))
                .until(() -> api().order(item, "vera", 2, "Idempotency-Key", "committed-unconfirmed"),
                        again -> again.status() != 503);
        assertThat(replay.status()).as("the first answer, now confirmed: %s", replay).isEqualTo(200);
        assertThat(replay.json().get("orderCode").asString()).isEqualTo(jdbc.sql(
                "SELECT order_code FROM purchase_order WHERE item_code = ?").param(item).query(String.class).single());
        assertThat(redisCounter(item)).isEqualTo(3);
        assertThat(orderCount(item)).isEqualTo(1);
    }

    private double settled(String result) {
        Counter counter = meters.find("flashstock.order.in-doubt.settled").tag("result", result).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void underConcurrentOrdersWithTheDatabaseDownEveryOrderIsRefusedFastAndTheStockIsAllThere() throws Exception {
        String item = uniqueItem("db-down-load");
        setStock(item, 1_000, null);
        int orders = 300;   // several full group-commit batches, more than the writers can fail one by one
        long[] tookNanos = new long[orders];

        STACK.stop("mariadb");
        List<ApiClient.Answer> answers;
        try {
            answers = concurrently(60, orders, n -> {
                long started = System.nanoTime();
                ApiClient.Answer answer = api().order(item, "load-" + n, 1);
                tookNanos[n] = System.nanoTime() - started;
                return answer;
            });
        } finally {
            STACK.start("mariadb");
        }

        assertThat(answers).allSatisfy(answer -> {
            assertThat(answer.status()).as("%s", answer).isEqualTo(503);
            assertThat(answer.code()).isEqualTo("DATABASE_UNAVAILABLE");
        });
        assertThat(Duration.ofNanos(Arrays.stream(tookNanos).max().orElseThrow())).isLessThan(FAST);
        // once the first writes found no database, the rest were refused before taking any stock
        assertThat(answers).anySatisfy(answer -> assertThat(answer.json().get("detail").asString())
                .isEqualTo("the order database is unreachable; no stock was taken"));
        assertThat(redisCounter(item)).as("every unit given back or never taken").isEqualTo(1_000);

        await("orders are taken again once the database answers").atMost(RECOVERY)
                .pollInterval(Duration.ofMillis(500)).until(() -> api().order(item, "after", 1).status() == 200);
        assertThat(redisCounter(item)).isEqualTo(999);
        assertThat(orderCount(item)).isEqualTo(1);
    }

    @Test
    void withTheDatabaseDownDbLockOrdersAnswer503FastAndTakeNothing() {
        String item = uniqueItem("db-lock-down");
        setStock(item, 5, null, Gate.DB_LOCK);

        STACK.stop("mariadb");
        ApiClient.Answer answer;
        Duration took;
        try {
            long started = System.nanoTime();
            answer = order(Gate.DB_LOCK, item, "quinn", 2, "Idempotency-Key", "during-outage");
            took = Duration.ofNanos(System.nanoTime() - started);
        } finally {
            STACK.start("mariadb");
        }

        assertThat(answer.status()).as("%s", answer).isEqualTo(503);
        assertThat(answer.code()).isEqualTo("DATABASE_UNAVAILABLE");
        assertThat(took).isLessThan(FAST);
        await("the pool reconnects").atMost(RECOVERY).pollInterval(Duration.ofMillis(500))
                .until(() -> api().get("/admin/items/" + item, "Authorization", ADMIN).status() == 200);
        assertThat(dbRemaining(item)).isEqualTo(5);
        assertThat(orderCount(item)).isZero();
        var retry = order(Gate.DB_LOCK, item, "quinn", 2, "Idempotency-Key", "during-outage");
        assertThat(retry.status()).as("%s", retry).isEqualTo(200);
        assertThat(dbRemaining(item)).isEqualTo(3);
    }

    @Test
    void aTakeWhoseReplyTimesOutIsFoundOutAndTheOrderGoesThrough() throws Exception {
        String item = uniqueItem("redis-slow");
        setStock(item, 5, null);

        // Redis holds scripts past two of the client's 1 s timeouts, then runs the take
        pauseRedisWrites(Duration.ofMillis(2_500));
        long started = System.nanoTime();
        ApiClient.Answer answer = api().order(item, "sam", 2);
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(took).as("the take's reply timed out twice").isGreaterThan(Duration.ofSeconds(2));
        assertThat(answer.status()).as("%s", answer).isEqualTo(200);
        assertThat(answer.json().get("remaining").asLong()).isEqualTo(3);
        assertThat(redisCounter(item)).isEqualTo(3);
        assertThat(orderCount(item)).isEqualTo(1);
    }

    @Test
    void withRedisDownOrdersAnswer503AndAfterItsRestartTheEngineRebuildsTheStock() {
        String item = uniqueItem("redis-down");
        setStock(item, 5, null);
        assertThat(api().order(item, "pete", 1).status()).isEqualTo(200);

        STACK.stop("redis");
        ApiClient.Answer down;
        Duration took;
        try {
            long started = System.nanoTime();
            down = api().order(item, "pete", 1);
            took = Duration.ofNanos(System.nanoTime() - started);
        } finally {
            STACK.start("redis");
        }
        assertThat(took).isLessThan(FAST);
        assertThat(down.status()).as("%s", down).isEqualTo(503);
        assertThat(down.code()).isEqualTo("REDIS_UNAVAILABLE");

        // the restarted Redis kept nothing: the item must not look unknown, nor sell from nothing, and the
        // engine rebuilds its counter from the orders without an operator
        await("Lettuce reconnects and the engine rebuilds the counter").atMost(RECOVERY)
                .pollInterval(Duration.ofMillis(200)).until(() -> {
                    var answer = api().order(item, "pete", 1);
                    assertThat(answer.status()).as("%s", answer).isIn(200, 503);
                    assertThat(answer.code()).isIn(null, "REDIS_UNAVAILABLE", "STOCK_RELOADING");
                    return answer.status() == 200;
                });
        assertThat(redisCounter(item)).isEqualTo(3);
        assertThat(orderCount(item)).isEqualTo(2);
    }

    private static void pauseRedisWrites(Duration pause) throws Exception {
        Process cli = new ProcessBuilder("redis-cli", "-p", Integer.toString(STACK.redisPort()),
                "CLIENT", "PAUSE", Long.toString(pause.toMillis()), "WRITE").redirectErrorStream(true).start();
        assertThat(cli.waitFor(5, TimeUnit.SECONDS)).isTrue();
        assertThat(new String(cli.getInputStream().readAllBytes()).trim()).isEqualTo("OK");
    }
}
