package io.flashstock.order.reconciliation;

import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.stock.Gate;
import io.flashstock.testsupport.PrivateStack;
import io.flashstock.testsupport.TestInfrastructure;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

import java.sql.DriverManager;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The report's reads of the orders database on the replica of {@code scripts/stack up --db-replica} (private servers):
 * there only once the replica has applied what the primary had when the report began, so that a report that says
 * exact still is. Kafka and stock-consumer are stood in for ({@link StandInSources}).
 */
// its servers are gone after the class: close the context rather than keep it reconnecting in the cache
@DirtiesContext
class ReplicaReadsIT extends OrderApiIntegrationTest {

    private static final PrivateStack STACK = PrivateStack.withDbReplica("order-api-replica-reads");

    @Autowired
    private OrdersReads reads;
    /** order-api's pool hands out non-autocommit connections: a write stands only once committed. */
    @Autowired
    private TransactionTemplate transaction;

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
        registry.add("flashstock.reconciliation.replica.url", () -> STACK.replicaJdbcUrl("orders"));
        registry.add("flashstock.reconciliation.replica.catch-up", () -> "1s");
    }

    @Test
    void aReplicaBehindIsNotReadAndTheReportStaysExact() throws SQLException {
        String item = uniqueItem("replica-reads");
        setStock(item, 10, null);
        asRootOnTheReplica("STOP SLAVE SQL_THREAD");
        try {
            assertThat(order(Gate.REDIS, item, "cyd", 3).status()).isEqualTo(200);
            relayed(item);

            ReconciliationReport behind = report(item);

            assertThat(behind.exact()).as("%s", behind).isTrue();
            assertThat(behind.ordersRead().source()).isEqualTo("primary");
            assertThat(behind.ordersRead().note()).contains("had not applied");
        } finally {
            asRootOnTheReplica("START SLAVE SQL_THREAD");
        }

        ReconciliationReport caughtUp = report(item);

        assertThat(caughtUp.exact()).as("%s", caughtUp).isTrue();
        assertThat(caughtUp.ordersRead().source()).isEqualTo("replica");
        assertThat(caughtUp.ordersRead().gtidPosition()).isNotBlank();

        STACK.kill("mariadb").dbFailover();
        ReconciliationReport afterFailover = report(item);

        assertThat(afterFailover.exact()).as("%s", afterFailover).isTrue();
        assertThat(afterFailover.ordersRead().source()).as("the replica's address is the primary now")
                .isEqualTo("primary");
        assertThat(afterFailover.ordersRead().note()).contains("writable");
    }

    private ReconciliationReport report(String item) {
        return StandInSources.report(reads, redis, item, 7, 1, new StandInSources.StandInKafka());
    }

    private void relayed(String item) {
        transaction.executeWithoutResult(status -> jdbc.sql(
                "UPDATE outbox_event SET status = 'SENT' WHERE aggregate_key = ?").param(item).update());
    }

    private static void asRootOnTheReplica(String sql) throws SQLException {
        try (var connection = DriverManager.getConnection(STACK.replicaJdbcUrl("orders"), "root", "");
             var statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
