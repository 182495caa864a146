package io.flashstock.order.token;

import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiApplication;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two order-apis on one Redis and one database, both issuing and redeeming the same item's tokens at once, each
 * token redeemed on both: no unit sold twice, every token one order, and the item sold out exactly.
 */
class TokenTwoInstancesIT extends TokenGateTest {

    private static final int STOCK = 30;
    private static final int USERS = 40;
    /** How long a simultaneous pair's first writer may take on a loaded machine. */
    private static final Duration SETTLED = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "tokentwo");
        registry.add("flashstock.token.key", () -> KEY);
    }

    @Autowired
    private Environment environment;

    private ConfigurableApplicationContext other;
    private ApiClient otherApi;

    @BeforeEach
    void startAnotherOrderApi() {
        var arguments = new ArrayList<String>();
        for (String name : List.of("spring.datasource.url", "spring.datasource.username", "spring.datasource.password",
                "spring.data.redis.host", "spring.data.redis.port", "spring.kafka.bootstrap-servers",
                "flashstock.warmup.item-code", "flashstock.admin.token", "flashstock.token.key",
                "flashstock.rate-limit.enabled")) {
            arguments.add("--" + name + "=" + environment.getRequiredProperty(name));
        }
        arguments.add("--flashstock.warmup.enabled=false");
        arguments.add("--server.port=0");
        other = new SpringApplicationBuilder(OrderApiApplication.class).run(arguments.toArray(String[]::new));
        otherApi = new ApiClient(other.getEnvironment().getRequiredProperty("local.server.port", Integer.class));
    }

    @AfterEach
    void stopIt() {
        if (other != null) {
            other.close();
        }
    }

    @Test
    void twoInstancesIssueAndRedeemTheSameItemWithoutSellingAUnitTwice() throws Exception {
        String item = uniqueItem("token-two");
        tokenStock(item, STOCK, null);

        var issued = concurrently(16, USERS, n -> issue(n % 2 == 0 ? api() : otherApi, item, "user-" + n, 1));
        var tokens = new ArrayList<String>();
        var users = new ArrayList<String>();
        for (int n = 0; n < USERS; n++) {
            var answer = issued.get(n);
            assertThat(answer.status()).as("%s", answer).isIn(201, 409);
            if (answer.status() == 201) {
                tokens.add(answer.json().get("token").asString());
                users.add("user-" + n);
            } else {
                assertThat(answer.code()).isEqualTo("SOLD_OUT");
            }
        }
        assertThat(tokens).hasSize(STOCK);

        // every token twice at once, once on each instance
        var orders = concurrently(16, 2 * STOCK, n -> redeem(n % 2 == 0 ? api() : otherApi, tokens.get(n / 2), item,
                users.get(n / 2), 1));
        var codes = new HashSet<String>();
        for (int n = 0; n < 2 * STOCK; n += 2) {
            var first = orders.get(n);
            var second = orders.get(n + 1);
            // the loser of a simultaneous pair may be told the order is being written; a retry gets the order
            var a = settled(first, api(), tokens.get(n / 2), item, users.get(n / 2));
            var b = settled(second, otherApi, tokens.get(n / 2), item, users.get(n / 2));
            assertThat(a.json().get("orderCode").asString()).isEqualTo(b.json().get("orderCode").asString())
                    .isEqualTo(idOf(tokens.get(n / 2)));
            codes.add(a.json().get("orderCode").asString());
        }

        assertThat(codes).hasSize(STOCK);
        assertThat(orderCount(item)).isEqualTo(STOCK);
        assertThat(orderedQuantity(item)).isEqualTo(STOCK);
        assertThat(redisCounter(item)).isZero();
        assertThat(holds(item)).isZero();
        var sold = otherApi.order(item, users.get(0), 1, "Authorization", "Bearer " + tokens.get(0));
        assertThat(sold.json().get("orderCode").asString()).isEqualTo(idOf(tokens.get(0)));
        assertThat(orderCount(item)).isEqualTo(STOCK);
    }

    /** The answer once the first writer's order is written: a loser told TOKEN_IN_USE asks again until then. */
    private ApiClient.Answer settled(ApiClient.Answer answer, ApiClient api, String token, String item, String user) {
        var current = new AtomicReference<>(answer);
        await("the token's order written").atMost(SETTLED).pollInterval(Duration.ofMillis(20)).until(() -> {
            if (current.get().status() == 409 && "TOKEN_IN_USE".equals(current.get().code())) {
                current.set(redeem(api, token, item, user, 1));
            }
            return !"TOKEN_IN_USE".equals(current.get().code());
        });
        assertThat(current.get().status()).as("%s", current.get()).isEqualTo(200);
        return current.get();
    }
}
