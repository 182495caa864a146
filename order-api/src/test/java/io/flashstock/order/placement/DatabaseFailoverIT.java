package io.flashstock.order.placement;

import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.testsupport.PrivateStack;
import io.flashstock.testsupport.TestInfrastructure;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The replicated database of {@code scripts/stack up --db-replica} (private servers, never the shared ones): the
 * primary killed while its replica lags, {@code scripts/stack db-failover}, and the service goes on through the same
 * DataSource, on the failover URL the stack gives it, without a restart, with every acknowledged order.
 */
// its servers are gone after the class: close the context rather than keep it reconnecting in the cache
@DirtiesContext
class DatabaseFailoverIT extends OrderApiIntegrationTest {

    private static final Duration RECOVERY = Duration.ofSeconds(30);

    private static final PrivateStack STACK = PrivateStack.withDbReplica("order-api-db-failover");

    @BeforeAll
    static void startPrivateServers() {
        STACK.start("redis").start("mariadb").start("mariadb-2");
    }

    @AfterAll
    static void removePrivateServers() {
        STACK.close();
    }

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        var infrastructure = TestInfrastructure.get();
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", STACK::redisPort);
        registry.add("spring.datasource.url", () -> STACK.failoverJdbcUrl("orders"));
        registry.add("spring.datasource.username", infrastructure::dbUser);
        registry.add("spring.datasource.password", infrastructure::dbPassword);
    }

    @Test
    void anAcknowledgedOrderSurvivesThePrimaryAndTheNextLandsOnThePromotedOne() throws SQLException {
        String item = uniqueItem("db-failover");
        setStock(item, 10, null);
        // a replica behind: it received (and acknowledged) ada's order but has not applied it when the primary dies
        asRootOnTheReplica("STOP SLAVE SQL_THREAD");
        ApiClient.Answer before = api().order(item, "ada", 2, "Idempotency-Key", "before-the-kill");
        assertThat(before.status()).as("%s", before).isEqualTo(200);

        STACK.kill("mariadb");
        // the replica lets no application connection in before its promotion: a stale read, then nothing written
        ApiClient.Answer meanwhile = api().order(item, "bob", 1, "Idempotency-Key", "before-the-promotion");
        assertThat(meanwhile.status()).as("%s", meanwhile).isEqualTo(503);
        assertThat(redisCounter(item)).as("given back").isEqualTo(8);

        STACK.dbFailover();
        ApiClient.Answer after = await("an order on the promoted primary").atMost(RECOVERY)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> api().order(item, "bob", 1, "Idempotency-Key", "before-the-promotion"),
                        answer -> answer.status() != 503);
        assertThat(after.status()).as("%s", after).isEqualTo(200);

        assertThat(ordersOnThePromotedNode(item)).as("ada's acknowledged order and bob's").isEqualTo(2);
        assertThat(orderCount(item)).isEqualTo(2);
        assertThat(redisCounter(item)).isEqualTo(7);
        assertThat(jdbc.sql("SELECT @@port").query(Integer.class).single())
                .as("the pool's connection").isEqualTo(STACK.mysqlReplicaPort());
        assertThatThrownBy(() -> STACK.start("mariadb")).as("the fenced primary starts no more")
                .isInstanceOf(IllegalStateException.class);
    }

    private static void asRootOnTheReplica(String sql) throws SQLException {
        try (var connection = DriverManager.getConnection(STACK.replicaJdbcUrl("orders"), "root", "");
             var statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static long ordersOnThePromotedNode(String item) throws SQLException {
        var infrastructure = TestInfrastructure.get();
        try (var connection = DriverManager.getConnection(STACK.replicaJdbcUrl("orders"), infrastructure.dbUser(),
                infrastructure.dbPassword());
             var count = connection.prepareStatement("SELECT COUNT(*) FROM purchase_order WHERE item_code = ?")) {
            count.setString(1, item);
            try (var rows = count.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
