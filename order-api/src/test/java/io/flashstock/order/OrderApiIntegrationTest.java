package io.flashstock.order;

import io.flashstock.order.stock.StockKeys;
import io.flashstock.testsupport.TestInfrastructure;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service on a random port against real Redis and MariaDB. Each subclass registers its own fresh
 * database (and so gets its own Spring context) and uses its own random item codes in the shared Redis.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"flashstock.warmup.enabled=false", "flashstock.admin.token=" + OrderApiIntegrationTest.TOKEN})
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
        infrastructure.registerDataSource(registry, infrastructure.createDatabase(prefix));
        // never the default warm-up item, which other test runs may use in the same Redis
        registry.add("flashstock.warmup.item-code", () -> uniqueItem("warmup"));
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
