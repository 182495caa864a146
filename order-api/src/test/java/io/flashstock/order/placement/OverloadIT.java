package io.flashstock.order.placement;

import io.flashstock.order.ApiClient;
import io.flashstock.order.HoldingTransactions;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.stock.Gate;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Past {@code max-in-flight} orders, an order of the Redis gate is refused after {@code max-wait} (503
 * {@code OVERLOADED}, {@code Retry-After}) with nothing sold, and orders are taken again as soon as one in flight
 * ends. The orders in flight are held at their commit, so the bound is reached deterministically.
 */
@TestPropertySource(properties = "flashstock.order.overload.max-in-flight=1")
@Import(HoldingTransactions.Installed.class)
class OverloadIT extends OrderApiIntegrationTest {

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "overload");
    }

    @Autowired
    private HoldingTransactions transactions;
    @Autowired
    private MeterRegistry meters;

    private final ExecutorService clients = Executors.newCachedThreadPool();

    @AfterEach
    void releaseAll() {
        transactions.release();
        clients.shutdownNow();
    }

    @Test
    void anOrderPastTheBoundIsRefusedAtOnceWithNothingSoldAndTheNextOneAfterIsTaken() throws Exception {
        String item = uniqueItem("overload");
        setStock(item, 5, null);
        double overloadedBefore = overloaded(Gate.REDIS);
        transactions.holdNext(HoldingTransactions.At.COMMIT);
        Future<ApiClient.Answer> inFlight = clients.submit(() -> api().order(item, "user-1", 1));
        transactions.awaitHeld();

        var refused = api().order(item, "user-2", 2);

        assertThat(refused.status()).as("%s", refused).isEqualTo(503);
        assertThat(refused.code()).isEqualTo("OVERLOADED");
        assertThat(refused.contentType()).isEqualTo("application/problem+json");
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(refused.json().get("instance").asString()).isEqualTo(OrderController.PATH);
        assertThat(redisCounter(item)).as("only the order in flight took stock").isEqualTo(4);
        assertThat(overloaded(Gate.REDIS)).isEqualTo(overloadedBefore + 1);

        transactions.release();
        assertThat(inFlight.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        var after = api().order(item, "user-3", 1);
        assertThat(after.status()).as("%s", after).isEqualTo(200);
        assertThat(redisCounter(item)).isEqualTo(3);
        assertThat(orderCount(item)).isEqualTo(2);
    }

    @Test
    void theDbLockBaselineHasABoundOfItsOwn() throws Exception {
        String busy = uniqueItem("overload-busy");
        setStock(busy, 5, null);
        String locked = uniqueItem("overload-locked");
        setStock(locked, 5, null, Gate.DB_LOCK);
        transactions.holdNext(HoldingTransactions.At.COMMIT);
        Future<ApiClient.Answer> inFlight = clients.submit(() -> api().order(busy, "user-1", 1));
        transactions.awaitHeld();

        var answer = order(Gate.DB_LOCK, locked, "user-2", 1);

        assertThat(answer.status()).as("%s", answer).isEqualTo(200);
        assertThat(dbRemaining(locked)).isEqualTo(4);
        transactions.release();
        assertThat(inFlight.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
    }

    private double overloaded(Gate gate) {
        return meters.get("flashstock.orders").tags("gate", gate.code(), "outcome", "overloaded").counter().count();
    }
}
