package io.flashstock.order.placement;

import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.stock.Gate;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A flood of DB-lock orders, every one queued on its item's row (held by this test), waiting for a connection or
 * refused by the baseline's bound, cannot refuse or starve a single order of the Redis gate. The socket timeout and the baseline's wait for a connection are
 * raised so that the queued orders outlast the test's slowest step.
 */
@TestPropertySource(properties = {"spring.datasource.hikari.data-source-properties.socketTimeout=60000",
        "flashstock.order.db-lock.connection-timeout=60s"})
class DbLockFloodIT extends OrderApiIntegrationTest {

    /** More than the orders pool's 20 connections. */
    private static final int FLOOD = 30;
    /** Tomcat's threads ({@code server.tomcat.threads.max}). */
    private static final int SERVER_THREADS = 200;
    private static final int MORE_THAN_THE_THREADS = 250;

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "dbflood");
    }

    @Autowired
    private MeterRegistry meters;
    @Autowired
    private Environment environment;

    @Test
    void dbLockOrdersQueuedOnTheirRowCannotTakeTheRedisGatesConnections() throws Exception {
        String locked = uniqueItem("flood-locked");
        setStock(locked, 1_000, null, Gate.DB_LOCK);
        String item = uniqueItem("flood-redis");
        setStock(item, 10, null);
        ExecutorService clients = Executors.newFixedThreadPool(FLOOD);
        List<Future<ApiClient.Answer>> flood = new ArrayList<>();
        try (Connection holder = holdingTheRowOf(locked)) {
            for (int i = 0; i < FLOOD; i++) {
                String user = "flood-" + i;
                flood.add(clients.submit(() -> order(Gate.DB_LOCK, locked, user, 1)));
            }
            await("every flood order waits for the row or a connection").atMost(Duration.ofSeconds(30))
                    .until(() -> waitingForARowLock(holder) + waitingForAConnection() >= FLOOD);

            var answer = api().order(item, "buyer", 1);

            assertThat(answer.status()).as("%s", answer).isEqualTo(200);
            holder.rollback();
        } finally {
            for (var order : flood) {
                order.get(60, TimeUnit.SECONDS);
            }
            clients.shutdownNow();
        }
        assertThat(redisCounter(item)).isEqualTo(9);
    }

    @Test
    void aFloodLargerThanTheServersThreadsIsBoundedAndCannotStarveTheRedisGate() throws Exception {
        String locked = uniqueItem("flood-threads");
        setStock(locked, 1_000, null, Gate.DB_LOCK);
        String item = uniqueItem("flood-threads-redis");
        setStock(item, 10, null);
        ExecutorService clients = Executors.newFixedThreadPool(MORE_THAN_THE_THREADS);
        List<Future<ApiClient.Answer>> flood = new ArrayList<>();
        try (Connection holder = holdingTheRowOf(locked)) {
            for (int i = 0; i < MORE_THAN_THE_THREADS; i++) {
                String user = "flood-" + i;
                flood.add(clients.submit(() -> order(Gate.DB_LOCK, locked, user, 1)));
            }
            // every server thread is taken by the flood (the code before), or the bound answered the rest
            await("the flood has taken what it can").atMost(Duration.ofSeconds(60)).until(() ->
                    waitingForARowLock(holder) + waitingForAConnection() + answered(flood) >= SERVER_THREADS);

            var answer = api().order(item, "buyer", 1);

            assertThat(answer.status()).as("%s", answer).isEqualTo(200);
            assertThat(flood.stream().filter(Future::isDone).map(this::answerOf).map(ApiClient.Answer::code))
                    .as("answered while the row is held: refused by the bound").containsOnly("OVERLOADED");
            holder.rollback();
        } finally {
            for (var order : flood) {
                order.get(120, TimeUnit.SECONDS);
            }
            clients.shutdownNow();
        }
    }

    private Connection holdingTheRowOf(String item) throws SQLException {
        Connection holder = DriverManager.getConnection(environment.getRequiredProperty("spring.datasource.url"),
                environment.getRequiredProperty("spring.datasource.username"),
                environment.getRequiredProperty("spring.datasource.password"));
        holder.setAutoCommit(false);
        try (var lock = holder.prepareStatement("SELECT db_remaining FROM stock_item WHERE item_code = ? FOR UPDATE")) {
            lock.setString(1, item);
            lock.executeQuery().close();
        }
        return holder;
    }

    private static long answered(List<Future<ApiClient.Answer>> requests) {
        return requests.stream().filter(Future::isDone).count();
    }

    private ApiClient.Answer answerOf(Future<ApiClient.Answer> request) {
        try {
            return request.get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Statements of this test's database running the DB-lock gate's locking read (queued on the held row); asked
     * on the test's own connection, since the pools may have none to spare.
     */
    private static long waitingForARowLock(Connection connection) throws SQLException {
        try (var query = connection.prepareStatement("""
                SELECT COUNT(*) FROM information_schema.PROCESSLIST
                WHERE DB = DATABASE() AND INFO LIKE 'SELECT generation, gate, db_remaining%FOR UPDATE'""");
             var rows = query.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** Threads waiting for a connection, in every pool of order-api. */
    private double waitingForAConnection() {
        return meters.find("hikaricp.connections.pending").gauges().stream().mapToDouble(Gauge::value).sum();
    }
}
