package io.flashstock.order.placement.indoubt;

import com.zaxxer.hikari.HikariDataSource;
import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiApplication;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.placement.OrderController;
import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.StockKeys;
import io.flashstock.testsupport.PrivateStack;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.DefaultTransactionStatus;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An order-api that dies with orders in doubt: it placed them while its database stopped mid-commit, and is
 * closed while the database is still down, so that neither its rounds nor its last attempt at shutdown can settle
 * them. The others, the test's own order-api and one started after the death, must settle them: the
 * Idempotency-Key answers, the units are sold (committed) or back (not), exactly once, and a waiting room moves.
 * Private Redis and MariaDB, which the test stops and starts.
 */
// its servers are gone after the class: close the context rather than keep it reconnecting in the cache
@DirtiesContext
class AbandonedInDoubtIT extends OrderApiIntegrationTest {

    @RegisterExtension
    static final PrivateStack STACK = PrivateStack.create("order-api-in-doubt").startingBeforeAll("redis", "mariadb");
    private static final Duration ABANDONED_AFTER = Duration.ofSeconds(2);
    /** The death is seen after ABANDONED_AFTER, then settled within a round (1 s): well within this. */
    private static final Duration SETTLED_WITHIN = Duration.ofSeconds(30);
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private static final List<ConfigurableApplicationContext> OTHERS = new ArrayList<>();

    @Autowired
    private Environment environment;
    @Autowired
    private MeterRegistry meters;
    @Autowired
    private DataSource dataSource;

    @AfterAll
    static void removePrivateServers() {
        OTHERS.forEach(ConfigurableApplicationContext::close);
        OTHERS.clear();
    }

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        privateInfrastructure(registry, STACK, () -> STACK.jdbcUrl("orders"));
        registry.add("flashstock.order.in-doubt.abandoned-after", () -> ABANDONED_AFTER.toMillis() + "ms");
        registry.add("flashstock.queue.admission-ttl", () -> "10s");
    }

    /**
     * The real transaction manager, which stops the database once: just before the next commit (which then never
     * lands), or just after it (which then throws as a lost reply would).
     */
    static class DatabaseStoppingCommits extends JdbcTransactionManager {
        enum Stop { NEVER, BEFORE_COMMIT, AFTER_COMMIT }

        private final AtomicReference<Stop> next = new AtomicReference<>(Stop.NEVER);

        DatabaseStoppingCommits(DataSource dataSource) {
            super(dataSource);
            setRollbackOnCommitFailure(true);
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            Stop stop = next.getAndSet(Stop.NEVER);
            if (stop == Stop.BEFORE_COMMIT) {
                STACK.stop("mariadb");
            }
            super.doCommit(status);
            if (stop == Stop.AFTER_COMMIT) {
                STACK.stop("mariadb");
                throw new TransactionSystemException("injected: committed, then the database stopped before the reply");
            }
        }
    }

    /** The order-api that dies: its commits stop the database on demand. */
    private record Dying(ConfigurableApplicationContext context, ApiClient api, DatabaseStoppingCommits commits) {

        /**
         * Places an order whose commit stops the database {@code when}: answered ORDER_OUTCOME_UNKNOWN, held in doubt.
         * The database is left stopped.
         *
         * @return the order's code
         */
        String inDoubt(DatabaseStoppingCommits.Stop when, String item, String user, int quantity, String... headers) {
            commits.next.set(when);
            // right after a restart of the database the breaker may still refuse, before taking any stock
            var answer = await("the dying order-api takes the order").atMost(DEADLINE)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> api.order(item, user, quantity, headers),
                            a -> !"DATABASE_UNAVAILABLE".equals(a.code()));
            assertThat(answer.status()).as("%s", answer).isEqualTo(503);
            assertThat(answer.code()).as("%s", answer).isEqualTo("ORDER_OUTCOME_UNKNOWN");
            return answer.json().get("orderCode").asString();
        }

        /** Dies with the database down: its last settlement at shutdown cannot reach it either. */
        void die() {
            context.close();
            OTHERS.remove(context);
        }
    }

    @Test
    void ordersInDoubtOfAnOrderApiThatDiedAreSettledOnceByTheOthersAndTheirKeysAnswer() throws SQLException {
        String item = uniqueItem("orphans");
        setStock(item, 10, null);
        Dying dying = startDying();
        String committedCode = dying.inDoubt(DatabaseStoppingCommits.Stop.AFTER_COMMIT, item, "ada", 2,
                "Idempotency-Key", "committed-then-died");
        restartDatabase();
        dying.inDoubt(DatabaseStoppingCommits.Stop.BEFORE_COMMIT, item, "bob", 3, "Idempotency-Key", "lost-then-died");
        assertThat(redisCounter(item)).as("both keep their units while in doubt").isEqualTo(5);
        assertThat(redis.opsForHash().size(StockKeys.inDoubt(item))).isEqualTo(2);
        dying.die();
        // counted while the database is down, so nothing can settle yet: ours may settle while its pool reconnects
        double[] before = settledEverywhere();
        restartDatabase();
        // a new order-api, which settles what it finds at start-up as well; ours settles in the background
        ConfigurableApplicationContext successor = anotherOrderApi(false);
        var successorApi = new ApiClient(port(successor));

        await("the orders of the dead order-api are settled").atMost(SETTLED_WITHIN)
                .pollInterval(Duration.ofMillis(100)).until(() -> !redis.hasKey(StockKeys.inDoubt(item)));
        assertThat(redisCounter(item)).as("the committed order's units stay sold, the other's came back").isEqualTo(8);
        double[] after = settledEverywhere();
        assertThat(after[0] - before[0]).as("committed, across both order-apis").isEqualTo(1);
        assertThat(after[1] - before[1]).as("given back, across both order-apis").isEqualTo(1);
        assertThat(after[2] - before[2]).as("nothing counted twice as recounted").isZero();

        var replay = api().order(item, "ada", 2, "Idempotency-Key", "committed-then-died");
        assertThat(replay.status()).as("the committed order, answered: %s", replay).isEqualTo(200);
        assertThat(replay.json().get("orderCode").asString()).isEqualTo(committedCode);
        var retry = successorApi.order(item, "bob", 3, "Idempotency-Key", "lost-then-died");
        assertThat(retry.status()).as("the key was freed, the retry served: %s", retry).isEqualTo(200);
        assertThat(redisCounter(item)).isEqualTo(5);
        assertThat(orderCount(item)).isEqualTo(2);
        assertThat(orderedQuantity(item)).isEqualTo(5);
    }

    @Test
    void aWaitingRoomHeldUpByTheOrdersInDoubtOfAnOrderApiThatDiedMovesAgain() throws SQLException {
        String givenBackItem = uniqueItem("q-orphan-lost");
        String soldItem = uniqueItem("q-orphan-sold");
        setStock(givenBackItem, 2, null, Gate.QUEUE);
        setStock(soldItem, 2, null, Gate.QUEUE);
        Dying dying = startDying();
        dying.inDoubt(DatabaseStoppingCommits.Stop.BEFORE_COMMIT, givenBackItem, "cai", 2, OrderController.QUEUE_TICKET,
                admitted(givenBackItem, "cai", 2));
        restartDatabase();
        dying.inDoubt(DatabaseStoppingCommits.Stop.AFTER_COMMIT, soldItem, "dee", 2, OrderController.QUEUE_TICKET,
                admitted(soldItem, "dee", 2));
        // the counters are at 0, and the units in doubt may come back: the heads wait
        String waitsForUnits = enter(givenBackItem, "eve", 2);
        String waitsForSellOut = enter(soldItem, "fay", 1);
        assertThat(status(waitsForUnits)).isEqualTo("WAITING");
        assertThat(status(waitsForSellOut)).isEqualTo("WAITING");
        dying.die();
        restartDatabase();

        await("the head of the room whose units came back is admitted").atMost(DEADLINE)
                .pollInterval(Duration.ofMillis(100)).until(() -> status(waitsForUnits), "ADMITTED"::equals);
        await("the head of the sold-out room is told").atMost(SETTLED_WITHIN)
                .pollInterval(Duration.ofMillis(100)).until(() -> status(waitsForSellOut), "SOLD_OUT"::equals);
        assertThat(api().order(givenBackItem, "eve", 2, OrderController.QUEUE_TICKET, waitsForUnits).status())
                .isEqualTo(200);
        assertThat(orderedQuantity(givenBackItem)).isEqualTo(2);
        assertThat(orderedQuantity(soldItem)).isEqualTo(2);
        assertThat(redisCounter(givenBackItem)).isZero();
        assertThat(redisCounter(soldItem)).isZero();
    }

    /**
     * Starts the database again and waits until this order-api's pool hands out a live connection. Hikari backs
     * off up to 5 s between attempts while the database is down, and each order-api answers DATABASE_UNAVAILABLE
     * until its pool has reconnected; the connections from before the stop are evicted, not handed out.
     */
    private void restartDatabase() throws SQLException {
        STACK.start("mariadb");
        dataSource.unwrap(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();
        await("this order-api's pool reconnects").atMost(DEADLINE).pollInterval(Duration.ofMillis(100))
                .ignoreExceptions().until(this::poolHandsALiveConnection);
    }

    private boolean poolHandsALiveConnection() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return connection.isValid(1);
        }
    }

    private String admitted(String item, String user, int quantity) {
        String ticket = enter(item, user, quantity);
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> status(ticket), "ADMITTED"::equals);
        return ticket;
    }

    private String enter(String item, String user, int quantity) {
        var entered = api().post(GateEndpoints.QUEUE, ApiClient.orderJson(item, user, quantity));
        assertThat(entered.status()).as("%s", entered).isEqualTo(201);
        return entered.json().path("ticket").asString();
    }

    private String status(String ticket) {
        return api().get(GateEndpoints.QUEUE + "/" + ticket).json().path("status").asString();
    }

    /** The orders in doubt settled by this order-api and every other still running: committed, given back, recounted. */
    private double[] settledEverywhere() {
        var registries = Stream.concat(Stream.of(meters), OTHERS.stream().map(o -> o.getBean(MeterRegistry.class)))
                .toList();
        double[] sums = new double[3];
        String[] results = {"committed", "given_back", "recounted"};
        for (var registry : registries) {
            for (int i = 0; i < results.length; i++) {
                Counter counter = registry.find("flashstock.order.in-doubt.settled").tag("result", results[i]).counter();
                sums[i] += counter == null ? 0 : counter.count();
            }
        }
        return sums;
    }

    /**
     * An order-api whose database stops on demand mid-commit, and which never looks its orders in doubt up again
     * by itself (once an hour), so that it dies with them.
     */
    private Dying startDying() {
        var context = anotherOrderApi(true);
        return new Dying(context, new ApiClient(port(context)), context.getBean(DatabaseStoppingCommits.class));
    }

    /** Another order-api on the same Redis and database, with the same settings. */
    private ConfigurableApplicationContext anotherOrderApi(boolean dying) {
        var arguments = new ArrayList<String>();
        for (String name : List.of("spring.datasource.url", "spring.datasource.username", "spring.datasource.password",
                "spring.data.redis.host", "spring.data.redis.port", "flashstock.admin.token",
                "flashstock.order.in-doubt.abandoned-after", "flashstock.queue.admission-ttl")) {
            arguments.add("--" + name + "=" + environment.getRequiredProperty(name));
        }
        arguments.add("--flashstock.warmup.enabled=false");
        arguments.add("--server.port=0");
        var builder = new SpringApplicationBuilder(OrderApiApplication.class);
        if (dying) {
            arguments.add("--flashstock.order.in-doubt.check-every=1h");
            builder.initializers(context -> ((GenericApplicationContext) context).registerBean("transactionManager",
                    DatabaseStoppingCommits.class,
                    () -> new DatabaseStoppingCommits(context.getBean(DataSource.class))));
        }
        var context = builder.run(arguments.toArray(String[]::new));
        OTHERS.add(context);
        return context;
    }

    private static int port(ConfigurableApplicationContext context) {
        return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }
}
