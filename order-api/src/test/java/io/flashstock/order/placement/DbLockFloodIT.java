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
 * A flood of DB-lock orders, every one queued on its item's row (held by this test) or waiting for a connection,
 * cannot refuse a single order of the Redis gate. The socket timeout and the baseline's wait for a connection are
 * raised so that the queued orders outlast the test's slowest step.
 */
@TestPropertySource(properties = {"spring.datasource.hikari.data-source-properties.socketTimeout=60000",
        "flashstock.order.db-lock.connection-timeout=60s"})
class DbLockFloodIT extends OrderApiIntegrationTest {

    /** More than the orders pool's 20 connections. */
    private static final int FLOOD = 30;

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
        try (Connection holder = DriverManager.getConnection(environment.getRequiredProperty("spring.datasource.url"),
                environment.getRequiredProperty("spring.datasource.username"),
                environment.getRequiredProperty("spring.datasource.password"))) {
            holder.setAutoCommit(false);
            try (var lock = holder.prepareStatement("SELECT db_remaining FROM stock_item WHERE item_code = ? FOR UPDATE")) {
                lock.setString(1, locked);
                lock.executeQuery().close();
            }
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
