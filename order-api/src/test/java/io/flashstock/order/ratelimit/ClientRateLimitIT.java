package io.flashstock.order.ratelimit;

import io.flashstock.order.AddressedClient;
import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.StockKeys;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rate limit per client address on waiting-room entries and token issues, against real Redis: a burst from one
 * address is refused past its allowance, 429 {@code RATE_LIMITED} with {@code Retry-After}, and changes nothing,
 * while another address is served. Clients are told apart by the address they connect from (loopback addresses of
 * their own); without a proxy configured, an {@code X-Forwarded-For} is not believed. Three requests per address,
 * then one a minute, so that no refill happens within a test.
 */
class ClientRateLimitIT extends OrderApiIntegrationTest {

    private static final int BURST = 3;
    private static final String KEY = Base64.getEncoder()
            .encodeToString("rate-limit-it-key-0123456789abcd".getBytes(StandardCharsets.US_ASCII));

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "ratelimit");
        registry.add("flashstock.rate-limit.enabled", () -> "true");
        registry.add("flashstock.rate-limit.burst", () -> Integer.toString(BURST));
        registry.add("flashstock.rate-limit.per-minute", () -> "1");
        registry.add("flashstock.token.key", () -> KEY);
    }

    @Test
    void entriesFromOneAddressPastTheBurstAreRefusedAndAnotherAddressIsServed() {
        String item = uniqueItem("rl-queue");
        setStock(item, 100, null, Gate.QUEUE);
        var one = client();
        for (int i = 0; i < BURST; i++) {
            var entered = enter(one, item, "one-" + i);
            assertThat(entered.status()).as("%s", entered).isEqualTo(201);
        }

        var refused = enter(one, item, "one-" + BURST);

        assertRateLimited(refused);
        assertThat(redis.opsForValue().get(queue(item) + ":seq")).as("entries taken").isEqualTo(Integer.toString(BURST));
        assertThat(redis.opsForHash().hasKey(queue(item) + ":users", "one-" + BURST)).isFalse();
        var other = enter(client(), item, "other");
        assertThat(other.status()).as("%s", other).isEqualTo(201);
    }

    @Test
    void tokenIssuesFromOneAddressPastTheBurstAreRefusedAndAnotherAddressIsServed() {
        String item = uniqueItem("rl-token");
        setStock(item, 100, null, Gate.TOKEN);
        var one = client();
        for (int i = 0; i < BURST; i++) {
            var issued = issue(one, item, "one-" + i);
            assertThat(issued.status()).as("%s", issued).isEqualTo(201);
        }

        var refused = issue(one, item, "one-" + BURST);

        assertRateLimited(refused);
        assertThat(redisCounter(item)).as("units taken").isEqualTo(100 - BURST);
        assertThat(redis.opsForHash().size(StockKeys.counter(item) + ":tokens")).isEqualTo(BURST);
        var other = issue(client(), item, "other");
        assertThat(other.status()).as("%s", other).isEqualTo(201);
        assertThat(redisCounter(item)).isEqualTo(100 - BURST - 1);
    }

    @Test
    void anXForwardedForIsNotBelievedWithoutAProxyConfigured() {
        String item = uniqueItem("rl-xff");
        setStock(item, 100, null, Gate.QUEUE);
        var one = client();
        for (int i = 0; i < BURST; i++) {
            var entered = enter(one, item, "one-" + i, "X-Forwarded-For", "203.0.113." + (i + 1));
            assertThat(entered.status()).as("%s", entered).isEqualTo(201);
        }

        assertRateLimited(enter(one, item, "one-" + BURST, "X-Forwarded-For", "198.51.100.7"));
    }

    private static void assertRateLimited(ApiClient.Answer refused) {
        assertThat(refused.status()).as("%s", refused).isEqualTo(429);
        assertThat(refused.code()).isEqualTo("RATE_LIMITED");
        assertThat(refused.contentType()).startsWith("application/problem+json");
        long retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
        assertThat(retryAfter).as("one more request a minute").isBetween(1L, 60L);
    }

    private AddressedClient client() {
        return new AddressedClient(port, AddressedClient.freshLoopbackAddress());
    }

    private static ApiClient.Answer enter(AddressedClient client, String item, String user, String... headers) {
        return client.post(GateEndpoints.QUEUE, ApiClient.orderJson(item, user, 1), headers);
    }

    private static ApiClient.Answer issue(AddressedClient client, String item, String user) {
        return client.post(GateEndpoints.TOKEN, ApiClient.orderJson(item, user, 1));
    }

    private String queue(String item) {
        return StockKeys.counter(item) + ":queue:" + redis.opsForValue().get(StockKeys.generation(item));
    }
}
