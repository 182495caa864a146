package io.flashstock.order;

import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.StockKeys;
import io.flashstock.testsupport.PrivateStack;
import io.flashstock.testsupport.TestInfrastructure;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service on a random port against real Redis and MariaDB. Each subclass registers its own fresh
 * database (and so gets its own Spring context) and uses its own random item codes in the shared Redis.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"flashstock.warmup.enabled=false", "flashstock.admin.token=" + OrderApiIntegrationTest.TOKEN,
                // the tests are many clients at one address; ClientRateLimitIT turns the limit on
                "flashstock.rate-limit.enabled=false",
                // no test here looks at the dashboard's history: without this each cached context (one per test
                // class) would sample Redis, Kafka and the peers every second until the run ends
                "flashstock.dashboard.background-sampling=false"})
public abstract class OrderApiIntegrationTest {

    public static final String TOKEN = "it-admin-token";
    public static final String ADMIN = "Bearer " + TOKEN;

    @LocalServerPort
    protected int port;
    @Autowired
    protected StringRedisTemplate redis;
    @Autowired
    protected JdbcClient jdbc;

    private ApiClient api;

    /** Shared Redis and a fresh database named after {@code prefix}; call from a {@code @DynamicPropertySource}. */
    protected static void sharedInfrastructure(DynamicPropertyRegistry registry, String prefix) {
        var infrastructure = TestInfrastructure.get();
        infrastructure.registerRedisAndKafka(registry);
        // order-api reads Kafka only for the reconciliation, under its own setting rather than spring.kafka's
        registry.add("flashstock.reconciliation.kafka-bootstrap-servers", infrastructure::kafkaBootstrapServers);
        infrastructure.registerDataSource(registry, infrastructure.createDatabase(prefix));
        // never the default warm-up item, which other test runs may use in the same Redis
        registry.add("flashstock.warmup.item-code", () -> uniqueItem("warmup"));
    }

    /**
     * A test's private Redis and the orders database at {@code ordersUrl} (one of {@code stack}'s URLs); call from a
     * {@code @DynamicPropertySource}.
     */
    protected static void privateInfrastructure(DynamicPropertyRegistry registry, PrivateStack stack,
                                                Supplier<Object> ordersUrl) {
        var infrastructure = TestInfrastructure.get();
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", stack::redisPort);
        registry.add("spring.datasource.url", ordersUrl);
        registry.add("spring.datasource.username", infrastructure::dbUser);
        registry.add("spring.datasource.password", infrastructure::dbPassword);
    }

    protected static String uniqueItem(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    protected ApiClient api() {
        if (api == null) {
            api = new ApiClient(port);
        }
        return api;
    }

    protected ApiClient.Answer setStock(String itemCode, long quantity, Integer perUserLimit) {
        var answer = api().put("/admin/items/" + itemCode + "/stock",
                "{\"quantity\":" + quantity + ",\"perUserLimit\":" + perUserLimit + "}", "Authorization", ADMIN);
        assertThat(answer.status()).as("stock reset: %s", answer).isEqualTo(200);
        return answer;
    }

    /** {@code POST /admin/items/{item}/stock/reload} with the admin token: the counter rebuilt from the orders. */
    protected ApiClient.Answer reload(String itemCode) {
        return api().post("/admin/items/" + itemCode + "/stock/reload", "", "Authorization", ADMIN);
    }

    /** A stock reset that names the item's gate ({@code redis} or {@code db-lock}). */
    protected ApiClient.Answer setStock(String itemCode, long quantity, Integer perUserLimit, Gate gate) {
        var answer = api().put("/admin/items/" + itemCode + "/stock", "{\"quantity\":" + quantity
                + ",\"perUserLimit\":" + perUserLimit + ",\"gate\":\"" + gate.code() + "\"}", "Authorization", ADMIN);
        assertThat(answer.status()).as("stock reset: %s", answer).isEqualTo(200);
        return answer;
    }

    /** POST to the endpoint of {@code gate}. */
    protected ApiClient.Answer order(Gate gate, String itemCode, String userId, int quantity, String... headers) {
        return api().post(gate == Gate.DB_LOCK ? "/order/stock/limit/db-lock" : "/order/stock/limit",
                ApiClient.orderJson(itemCode, userId, quantity), headers);
    }

    /** {@code stock_item.db_remaining}: the units left of a db-lock item, null for a Redis item. */
    protected Long dbRemaining(String itemCode) {
        var value = (Number) jdbc.sql("SELECT db_remaining FROM stock_item WHERE item_code = ?").param(itemCode)
                .query().singleRow().get("db_remaining");
        return value == null ? null : value.longValue();
    }

    /**
     * Sends {@code requests} requests from {@code clients} threads, all released at once; a fixed pool, since
     * the tests run on JDK 17 (no virtual threads).
     */
    protected static List<ApiClient.Answer> concurrently(int clients, int requests,
                                                         IntFunction<ApiClient.Answer> request) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            var start = new CountDownLatch(1);
            var futures = new ArrayList<Future<ApiClient.Answer>>(requests);
            for (int i = 0; i < requests; i++) {
                int n = i;
                futures.add(pool.submit(() -> {
                    start.await();
                    return request.apply(n);
                }));
            }
            start.countDown();
            var answers = new ArrayList<ApiClient.Answer>(requests);
            for (var future : futures) {
                answers.add(future.get(2, TimeUnit.MINUTES));
            }
            return answers;
        } finally {
            pool.shutdownNow();
        }
    }

    protected Long redisCounter(String itemCode) {
        String value = redis.opsForValue().get(StockKeys.counter(itemCode));
        return value == null ? null : Long.valueOf(value);
    }

    protected long orderCount(String itemCode) {
        return jdbc.sql("SELECT COUNT(*) FROM purchase_order WHERE item_code = ?").param(itemCode)
                .query(Long.class).single();
    }

    protected long orderedQuantity(String itemCode) {
        return jdbc.sql("SELECT COALESCE(SUM(quantity), 0) FROM purchase_order WHERE item_code = ?").param(itemCode)
                .query(Long.class).single();
    }

    protected long outboxCount(String itemCode, String eventType) {
        return jdbc.sql("SELECT COUNT(*) FROM outbox_event WHERE aggregate_key = ? AND event_type = ?")
                .params(itemCode, eventType).query(Long.class).single();
    }
}
