package io.flashstock.order.placement;

import io.flashstock.contract.StockDeducted;
import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.stock.Gate;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reduced spike of the comparison (issue 11), for both gates: every user fires one order at the same
 * instant against an item with little stock. Exactly the stock is sold, everyone else is told SOLD_OUT, and
 * the gate, the orders and the outbox agree.
 */
class SpikeIT extends OrderApiIntegrationTest {

    private static final int USERS = 500;
    private static final int STOCK = 100;

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "spike");
        // the DB-lock gate queues every order of the item for one of its pool's connections and then the row lock:
        // its 1 s wait for a connection (fail fast when the database is gone) would answer the end of that queue 503
        registry.add("flashstock.order.db-lock.connection-timeout", () -> "10s");
        // and every user is in flight at once, past the baseline's bound of 50
        registry.add("flashstock.order.db-lock.max-in-flight", () -> "1000");
        // likewise 500 takes at once on two cores, test clients included, may queue past the 1 s Redis timeout
        registry.add("spring.data.redis.timeout", () -> "10s");
    }

    @Autowired
    private MeterRegistry meters;

    @ParameterizedTest
    // the two-step gates need a ticket or a token per order: their own ITs check the same
    @EnumSource(value = Gate.class, names = {"REDIS", "DB_LOCK"})
    void fiveHundredUsersAtOnceForAHundredUnitsBuyExactlyAHundred(Gate gate) throws Exception {
        String item = uniqueItem("spike-" + gate.code());
        setStock(item, STOCK, null, gate);
        double acceptedBefore = outcomes(gate, "accepted");
        double soldOutBefore = outcomes(gate, "sold_out");

        // one thread per user, so all of them are in flight at once
        List<ApiClient.Answer> answers = concurrently(USERS, USERS, i -> order(gate, item, "user-" + i, 1));

        Map<Integer, Long> byStatus = answers.stream()
                .collect(Collectors.groupingBy(ApiClient.Answer::status, Collectors.counting()));
        assertThat(byStatus).containsExactlyInAnyOrderEntriesOf(Map.of(200, (long) STOCK, 409, (long) USERS - STOCK));
        assertThat(answers.stream().filter(a -> a.status() == 409).map(ApiClient.Answer::code))
                .containsOnly("SOLD_OUT");
        assertThat(answers.stream().filter(a -> a.status() == 200).map(a -> a.json().get("orderCode").asString())
                .distinct()).hasSize(STOCK);
        assertThat(answers.stream().filter(a -> a.status() == 200).map(a -> a.json().get("remaining").asLong())
                .distinct()).as("each unit was taken once").hasSize(STOCK);
        assertThat(gate == Gate.DB_LOCK ? dbRemaining(item) : redisCounter(item)).isZero();
        assertThat(gate == Gate.DB_LOCK ? redisCounter(item) : dbRemaining(item)).as("the other gate has none")
                .isNull();
        assertThat(orderCount(item)).isEqualTo(STOCK);
        assertThat(orderedQuantity(item)).isEqualTo(STOCK);
        assertThat(outboxCount(item, StockDeducted.TYPE)).isEqualTo(STOCK);
        assertThat(outcomes(gate, "accepted") - acceptedBefore).isEqualTo(STOCK);
        assertThat(outcomes(gate, "sold_out") - soldOutBefore).isEqualTo(USERS - STOCK);
    }

    private double outcomes(Gate gate, String outcome) {
        return meters.get("flashstock.orders").tags("gate", gate.code(), "outcome", outcome).counter().count();
    }
}
