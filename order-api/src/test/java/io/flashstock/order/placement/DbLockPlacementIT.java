package io.flashstock.order.placement;

import io.flashstock.contract.StockDeducted;
import io.flashstock.contract.StockEvent;
import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.StockKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code POST /order/stock/limit/db-lock}: the same answers as the Redis gate, from one locked transaction. */
@Import(OrderPlacementIT.CommitFaults.class)
class DbLockPlacementIT extends OrderApiIntegrationTest {

    private static final int CLIENTS = 20;

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "dblock");
    }

    @Autowired
    private OrderPlacementIT.FaultyCommits commits;
    @Autowired
    private JsonMapper jsonMapper;

    @AfterEach
    void healCommits() {
        commits.fault = OrderPlacementIT.FaultyCommits.Fault.NONE;
    }

    @Test
    void anOrderTakesFromTheRowAndWritesTheOrderAndItsEventInOneGo() {
        String item = uniqueItem("db-order");
        setStock(item, 10, null, Gate.DB_LOCK);

        var answer = order(Gate.DB_LOCK, item, "alice", 3);

        assertThat(answer.status()).as("%s", answer).isEqualTo(200);
        assertThat(answer.json().get("itemCode").asString()).isEqualTo(item);
        assertThat(answer.json().get("quantity").asInt()).isEqualTo(3);
        assertThat(answer.json().get("remaining").asLong()).isEqualTo(7);
        assertThat(dbRemaining(item)).isEqualTo(7);
        assertThat(redisCounter(item)).as("Redis plays no part").isNull();
        String orderCode = answer.json().get("orderCode").asString();
        var row = jdbc.sql("""
                        SELECT o.generation, o.remaining, e.payload, e.status FROM purchase_order o
                        JOIN outbox_event e ON e.event_id = o.event_id WHERE o.order_code = ?""")
                .param(orderCode).query().singleRow();
        assertThat(row.get("remaining")).isEqualTo(7L);
        assertThat(row.get("status")).isEqualTo("NEW");
        assertThat(jsonMapper.readValue((String) row.get("payload"), StockEvent.class))
                .isInstanceOfSatisfying(StockDeducted.class, deducted -> {
                    assertThat(deducted.orderCode()).isEqualTo(orderCode);
                    assertThat(deducted.userId()).isEqualTo("alice");
                    assertThat(deducted.quantity()).isEqualTo(3);
                    assertThat(deducted.generation()).isEqualTo(1);
                });

        var tooMany = order(Gate.DB_LOCK, item, "bob", 8);
        assertThat(tooMany.status()).isEqualTo(409);
        assertThat(tooMany.code()).isEqualTo("SOLD_OUT");
        assertThat(tooMany.json().get("remaining").asLong()).isEqualTo(7);
        assertThat(dbRemaining(item)).isEqualTo(7);
    }

    @Test
    void eachEndpointRefusesTheOtherGatesItemsAndAnUnknownItemIsUnknown() {
        String redisItem = uniqueItem("redis-item");
        String dbItem = uniqueItem("db-item");
        setStock(redisItem, 5, null);
        setStock(dbItem, 5, null, Gate.DB_LOCK);

        var toDb = order(Gate.DB_LOCK, redisItem, "carol", 1);
        var toRedis = order(Gate.REDIS, dbItem, "carol", 1);

        assertThat(toDb.status()).isEqualTo(409);
        assertThat(toDb.code()).isEqualTo("WRONG_GATE");
        assertThat(toDb.json().get("gate").asString()).isEqualTo("redis");
        assertThat(toRedis.status()).isEqualTo(409);
        assertThat(toRedis.code()).isEqualTo("WRONG_GATE");
        assertThat(toRedis.json().get("gate").asString()).isEqualTo("db-lock");
        assertThat(toRedis.contentType()).isEqualTo("application/problem+json");
        assertThat(redisCounter(redisItem)).isEqualTo(5);
        assertThat(dbRemaining(dbItem)).isEqualTo(5);
        assertThat(orderCount(redisItem) + orderCount(dbItem)).isZero();

        var unknown = order(Gate.DB_LOCK, uniqueItem("never-set"), "carol", 1);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.code()).isEqualTo("UNKNOWN_ITEM");
    }

    @Test
    void anItemSoldThroughAWaitingRoomOrATokenRefusesPlainOrdersOnBothEndpoints() {
        for (Gate twoStep : List.of(Gate.QUEUE, Gate.TOKEN)) {
            String item = uniqueItem(twoStep.code());
            setStock(item, 5, null, twoStep);

            for (Gate endpoint : List.of(Gate.REDIS, Gate.DB_LOCK)) {
                var plain = order(endpoint, item, "frank", 1);
                assertThat(plain.status()).as("%s through %s: %s", twoStep, endpoint, plain).isEqualTo(409);
                assertThat(plain.code()).isEqualTo("WRONG_GATE");
                assertThat(plain.json().get("gate").asString()).isEqualTo(twoStep.code());
            }
            assertThat(redisCounter(item)).isEqualTo(5);
            assertThat(orderCount(item)).isZero();
        }
    }

    @Test
    void aResetMovesAnItemBetweenGatesAndOnlyItsGateSellsIt() {
        String item = uniqueItem("switch");
        setStock(item, 10, 4);
        assertThat(order(Gate.REDIS, item, "dave", 2).status()).isEqualTo(200);

        var view = setStock(item, 6, 4, Gate.DB_LOCK).json();

        assertThat(view.get("gate").asString()).isEqualTo("db-lock");
        assertThat(view.get("dbRemaining").asLong()).isEqualTo(6);
        assertThat(view.get("redisRemaining").isNull()).isTrue();
        assertThat(redis.hasKey(StockKeys.counter(item))).isFalse();
        assertThat(redis.hasKey(StockKeys.limit(item))).isFalse();
        assertThat(redis.opsForValue().get(StockKeys.generation(item))).as("kept against a late older load")
                .isEqualTo("2");
        assertThat(order(Gate.REDIS, item, "dave", 1).code()).isEqualTo("WRONG_GATE");
        assertThat(order(Gate.DB_LOCK, item, "dave", 4).status()).as("a new generation: the limit starts over")
                .isEqualTo(200);
        assertThat(order(Gate.DB_LOCK, item, "dave", 1).code()).isEqualTo("PER_USER_LIMIT_REACHED");

        setStock(item, 5, null, Gate.REDIS);

        assertThat(redisCounter(item)).isEqualTo(5);
        assertThat(dbRemaining(item)).isNull();
        assertThat(order(Gate.DB_LOCK, item, "dave", 1).code()).isEqualTo("WRONG_GATE");
        assertThat(order(Gate.REDIS, item, "dave", 1).status()).isEqualTo(200);
    }

    @Test
    void thePerUserLimitHoldsUnderConcurrencyAndOtherUsersStillBuy() throws Exception {
        String item = uniqueItem("db-limit");
        setStock(item, 100, 2, Gate.DB_LOCK);

        List<ApiClient.Answer> answers = concurrently(CLIENTS, 40, i -> order(Gate.DB_LOCK, item, "erin", 1));

        assertThat(answers.stream().filter(a -> a.status() == 200)).hasSize(2);
        assertThat(answers.stream().filter(a -> a.status() != 200).map(ApiClient.Answer::code))
                .hasSize(38).containsOnly("PER_USER_LIMIT_REACHED");
        var refused = answers.stream().filter(a -> a.status() == 409).findFirst().orElseThrow().json();
        assertThat(refused.get("bought").asLong()).isEqualTo(2);
        assertThat(refused.get("perUserLimit").asLong()).isEqualTo(2);
        assertThat(order(Gate.DB_LOCK, item, "erin", 1).code()).isEqualTo("PER_USER_LIMIT_REACHED");
        assertThat(order(Gate.DB_LOCK, item, "frank", 2).status()).isEqualTo(200);
        assertThat(dbRemaining(item)).isEqualTo(96);
    }

    @Test
    void theSameIdempotencyKeyGivesOneOrderAndTheSameAnswerEvenConcurrently() throws Exception {
        String item = uniqueItem("db-idem");
        setStock(item, 10, null, Gate.DB_LOCK);

        var first = order(Gate.DB_LOCK, item, "grace", 3, "Idempotency-Key", "order-42");
        var second = order(Gate.DB_LOCK, item, "grace", 3, "Idempotency-Key", "order-42");

        assertThat(first.status()).isEqualTo(200);
        assertThat(second.json()).isEqualTo(first.json());
        assertThat(dbRemaining(item)).isEqualTo(7);
        assertThat(orderCount(item)).isEqualTo(1);
        var otherOrder = order(Gate.DB_LOCK, item, "grace", 2, "Idempotency-Key", "order-42");
        assertThat(otherOrder.status()).isEqualTo(422);
        assertThat(otherOrder.code()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        var otherUser = order(Gate.DB_LOCK, item, "heidi", 3, "Idempotency-Key", "order-42");
        assertThat(otherUser.code()).isEqualTo("IDEMPOTENCY_KEY_REUSED");

        List<ApiClient.Answer> race = concurrently(CLIENTS, CLIENTS,
                i -> order(Gate.DB_LOCK, item, "ivan", 1, "Idempotency-Key", "same-key"));

        assertThat(race).allSatisfy(a -> assertThat(a.status()).as("%s", a).isEqualTo(200));
        assertThat(race.stream().map(a -> a.json().get("orderCode").asString()).distinct()).hasSize(1);
        assertThat(dbRemaining(item)).isEqualTo(6);
        assertThat(orderCount(item)).isEqualTo(2);
        assertThat(outboxCount(item, StockDeducted.TYPE)).isEqualTo(2);
    }

    @Test
    void aFailedCommitTakesNothingAndACommitThatTookEffectStands() {
        String item = uniqueItem("db-commit");
        setStock(item, 5, null, Gate.DB_LOCK);

        commits.fault = OrderPlacementIT.FaultyCommits.Fault.FAIL_WITHOUT_COMMITTING;
        var failed = order(Gate.DB_LOCK, item, "judy", 2, "Idempotency-Key", "retry-me");

        assertThat(failed.status()).isEqualTo(503);
        assertThat(failed.code()).isEqualTo("DATABASE_UNAVAILABLE");
        assertThat(failed.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(dbRemaining(item)).isEqualTo(5);
        assertThat(orderCount(item)).isZero();
        assertThat(outboxCount(item, StockDeducted.TYPE)).isZero();

        commits.fault = OrderPlacementIT.FaultyCommits.Fault.FAIL_AFTER_COMMITTING;
        var committed = order(Gate.DB_LOCK, item, "judy", 2, "Idempotency-Key", "retry-me");

        assertThat(committed.status()).as("%s", committed).isEqualTo(200);
        assertThat(dbRemaining(item)).isEqualTo(3);
        assertThat(orderCount(item)).isEqualTo(1);
        commits.fault = OrderPlacementIT.FaultyCommits.Fault.NONE;
        assertThat(order(Gate.DB_LOCK, item, "judy", 2, "Idempotency-Key", "retry-me").json())
                .isEqualTo(committed.json());
    }
}
