package io.flashstock.order.stock;

import io.flashstock.contract.StockEvent;
import io.flashstock.contract.StockReset;
import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.warmup.WarmupProperties;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

class StockAdminIT extends OrderApiIntegrationTest {

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "admin");
    }

    @Autowired
    private JsonMapper jsonMapper;
    @Autowired
    private WarmupProperties warmup;

    @Test
    void everyAdminEndpointRequiresTheBearerToken() {
        String item = uniqueItem("auth");
        for (var answer : new ApiClient.Answer[]{
                api().get("/admin/items/" + item),
                api().get("/admin/items/" + item, "Authorization", "Bearer wrong"),
                api().get("/admin/items/" + item, "Authorization", TOKEN),
                api().post("/admin/items/" + item + "/stock/reload", ""),
                api().put("/admin/items/" + item + "/stock", "{\"quantity\":1}")}) {
            assertThat(answer.status()).as("%s", answer).isEqualTo(401);
            assertThat(answer.code()).isEqualTo("ADMIN_UNAUTHORIZED");
            assertThat(answer.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
        }
        assertThat(redisCounter(item)).isNull();
        assertThat(api().get("/admin/items/" + item, "Authorization", "bearer " + TOKEN).code())
                .as("the scheme is case-insensitive; the item just does not exist").isEqualTo("UNKNOWN_ITEM");
    }

    @Test
    void aResetRecordsTheBaselineWritesAStockResetEventAndSetsRedis() {
        String item = uniqueItem("reset");

        var first = setStock(item, 40, 3).json();
        assertThat(first.get("generation").asLong()).isEqualTo(1);
        assertThat(first.get("baseline").asLong()).isEqualTo(40);
        assertThat(first.get("perUserLimit").asInt()).isEqualTo(3);
        assertThat(first.get("redisRemaining").asLong()).isEqualTo(40);
        assertThat(redis.opsForValue().get(StockKeys.limit(item))).isEqualTo("3");

        api().order(item, "ivan", 2);
        var second = setStock(item, 25, null).json();

        assertThat(second.get("generation").asLong()).isEqualTo(2);
        assertThat(second.get("ordersCount").asLong()).as("orders of the new generation").isZero();
        assertThat(redisCounter(item)).isEqualTo(25);
        assertThat(redis.opsForValue().get(StockKeys.generation(item))).isEqualTo("2");
        assertThat(redis.hasKey(StockKeys.limit(item))).isFalse();
        var resets = jdbc.sql("""
                        SELECT payload FROM outbox_event WHERE aggregate_key = ? AND event_type = ? AND status = 'NEW'
                        ORDER BY id""")
                .params(item, StockReset.TYPE).query(String.class).list().stream()
                .map(payload -> jsonMapper.readValue(payload, StockEvent.class)).toList();
        assertThat(resets).hasSize(2).allSatisfy(event -> assertThat(event).isInstanceOf(StockReset.class));
        var last = (StockReset) resets.get(1);
        assertThat(last.quantity()).isEqualTo(25);
        assertThat(last.perUserLimit()).isNull();
        assertThat(last.generation()).isEqualTo(2);
        assertThat(last.itemCode()).isEqualTo(item);
        assertThat(jdbc.sql("SELECT reset_event_id FROM stock_item WHERE item_code = ?").param(item)
                .query(String.class).single()).isEqualTo(last.eventId().toString());
    }

    @Test
    void aDbLockResetWritesAStockResetEventKeepsTheStockInTheRowAndHasNothingToReload() {
        String item = uniqueItem("db-reset");

        var view = setStock(item, 30, 2, Gate.DB_LOCK).json();

        assertThat(view.get("gate").asString()).isEqualTo("db-lock");
        assertThat(view.get("generation").asLong()).isEqualTo(1);
        assertThat(view.get("dbRemaining").asLong()).isEqualTo(30);
        assertThat(view.get("redisRemaining").isNull()).isTrue();
        assertThat(view.get("drift").asLong()).isZero();
        assertThat(redis.hasKey(StockKeys.counter(item))).isFalse();
        assertThat(redis.hasKey(StockKeys.limit(item))).isFalse();
        String payload = jdbc.sql("SELECT payload FROM outbox_event WHERE aggregate_key = ? AND event_type = ?")
                .params(item, StockReset.TYPE).query(String.class).single();
        var reset = (StockReset) jsonMapper.readValue(payload, StockEvent.class);
        assertThat(reset.quantity()).isEqualTo(30);
        assertThat(reset.perUserLimit()).isEqualTo(2);
        assertThat(reset.generation()).isEqualTo(1);
        assertThat(jdbc.sql("SELECT reset_event_id FROM stock_item WHERE item_code = ?").param(item)
                .query(String.class).single()).isEqualTo(reset.eventId().toString());

        assertThat(order(Gate.DB_LOCK, item, "nina", 2).status()).isEqualTo(200);
        var after = api().get("/admin/items/" + item, "Authorization", ADMIN).json();
        assertThat(after.get("dbRemaining").asLong()).isEqualTo(28);
        assertThat(after.get("ordersQuantity").asLong()).isEqualTo(2);
        assertThat(after.get("expectedRemaining").asLong()).isEqualTo(28);
        assertThat(after.get("drift").asLong()).isZero();

        var reload = reload(item);
        assertThat(reload.status()).isEqualTo(409);
        assertThat(reload.code()).isEqualTo("WRONG_GATE");
        assertThat(reload.json().get("gate").asString()).isEqualTo("db-lock");
        assertThat(redis.hasKey(StockKeys.counter(item))).isFalse();
    }

    @Test
    void aResetWithoutAGateIsARedisItem() {
        String item = uniqueItem("default-gate");
        var view = setStock(item, 3, null).json();

        assertThat(view.get("gate").asString()).isEqualTo("redis");
        assertThat(view.get("dbRemaining").isNull()).isTrue();
        assertThat(jdbc.sql("SELECT gate FROM stock_item WHERE item_code = ?").param(item).query(String.class)
                .single()).isEqualTo("redis");
    }

    @Test
    void theViewAddsUpTheOrdersOfTheCurrentGeneration() {
        String item = uniqueItem("view");
        setStock(item, 10, null);
        api().order(item, "judy", 3);
        api().order(item, "ken", 2);

        var view = api().get("/admin/items/" + item, "Authorization", ADMIN).json();

        assertThat(view.get("redisRemaining").asLong()).isEqualTo(5);
        assertThat(view.get("redisGeneration").asLong()).isEqualTo(1);
        assertThat(view.get("baseline").asLong()).isEqualTo(10);
        assertThat(view.get("ordersCount").asLong()).isEqualTo(2);
        assertThat(view.get("ordersQuantity").asLong()).isEqualTo(5);
        assertThat(view.get("expectedRemaining").asLong()).isEqualTo(5);
        assertThat(view.get("drift").asLong()).isZero();

        redis.opsForValue().decrement(StockKeys.counter(item), 2);
        assertThat(api().get("/admin/items/" + item, "Authorization", ADMIN).json().get("drift").asLong())
                .as("Redis lower than the orders say, as after a crash before the commit").isEqualTo(2);

        var unknown = api().get("/admin/items/" + uniqueItem("nothing"), "Authorization", ADMIN);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.code()).isEqualTo("UNKNOWN_ITEM");
    }

    @Test
    void aReloadRebuildsLostKeysFromTheBaselineAndTheOrders() {
        String item = uniqueItem("reload");
        setStock(item, 10, 3);
        assertThat(api().order(item, "leo", 2).status()).isEqualTo(200);
        assertThat(api().order(item, "mia", 1).status()).isEqualTo(200);
        redis.delete(StockKeys.itemKeys(item));
        redis.delete(StockKeys.bought(item, 1, "leo"));

        var reloaded = reload(item);

        assertThat(reloaded.status()).as("%s", reloaded).isEqualTo(200);
        assertThat(reloaded.json().get("redisRemaining").asLong()).isEqualTo(7);
        assertThat(reloaded.json().get("drift").asLong()).isZero();
        assertThat(redis.opsForValue().get(StockKeys.generation(item))).isEqualTo("1");
        assertThat(redis.opsForValue().get(StockKeys.limit(item))).isEqualTo("3");
        assertThat(redis.opsForValue().get(StockKeys.load(item))).as("a reload is a new load").isEqualTo("2");
        assertThat(redis.opsForValue().get(StockKeys.bought(item, 2, "leo"))).isEqualTo("2");
        assertThat(api().order(item, "leo", 2).code()).as("the per-user count came back too")
                .isEqualTo("PER_USER_LIMIT_REACHED");
        assertThat(api().order(item, "leo", 1).status()).isEqualTo(200);
        assertThat(redisCounter(item)).isEqualTo(6);
    }

    @Test
    void theWarmupItemCannotBeGivenStock() {
        String item = warmup.itemCode();
        var answer = api().put("/admin/items/" + item + "/stock", "{\"quantity\":5,\"perUserLimit\":null}",
                "Authorization", ADMIN);

        assertThat(answer.status()).isEqualTo(409);
        assertThat(answer.code()).isEqualTo("RESERVED_ITEM");
        assertThat(jdbc.sql("SELECT COUNT(*) FROM stock_item WHERE item_code = ?").param(item)
                .query(Long.class).single()).isZero();
        assertThat(redisCounter(item)).isNull();
    }
}
