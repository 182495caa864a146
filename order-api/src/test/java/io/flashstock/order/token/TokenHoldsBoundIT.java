package io.flashstock.order.token;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bound of the token gate: at most 3 holds outstanding per item. The issue past it is refused, 429
 * {@code HOLDS_FULL} with {@code Retry-After}, and takes nothing; a redeemed token frees its place.
 */
class TokenHoldsBoundIT extends TokenGateTest {

    private static final int MAX_HOLDS = 3;

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "tokenbound");
        registry.add("flashstock.token.key", () -> KEY);
        registry.add("flashstock.token.max-holds", () -> Integer.toString(MAX_HOLDS));
    }

    @Test
    void theIssuePastMaxHoldsIsRefusedAndTakesNothingUntilAHoldEnds() {
        String item = uniqueItem("tb-max");
        tokenStock(item, 10, null);
        var tokens = new java.util.ArrayList<String>();
        for (int i = 0; i < MAX_HOLDS; i++) {
            tokens.add(token(item, "user-" + i, 1));
        }

        var refused = issue(item, "late", 1);

        assertThat(refused.status()).as("%s", refused).isEqualTo(429);
        assertThat(refused.code()).isEqualTo("HOLDS_FULL");
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.json().path("maxHolds").asLong()).isEqualTo(MAX_HOLDS);
        assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow()))
                .as("at the latest when the first hold expires, its 60 s and 5 s of grace").isBetween(1L, 65L);
        assertThat(redisCounter(item)).isEqualTo(10 - MAX_HOLDS);
        assertThat(holds(item)).isEqualTo(MAX_HOLDS);

        assertThat(redeem(tokens.get(0), item, "user-0", 1).status()).isEqualTo(200);
        var again = issue(item, "late", 1);
        assertThat(again.status()).as("%s", again).isEqualTo(201);
        assertThat(redisCounter(item)).isEqualTo(10 - MAX_HOLDS - 1);
    }

    @Test
    void anotherItemHasHoldsOfItsOwn() {
        String full = uniqueItem("tb-full");
        String other = uniqueItem("tb-other");
        tokenStock(full, 10, null);
        tokenStock(other, 10, null);
        for (int i = 0; i < MAX_HOLDS; i++) {
            token(full, "user-" + i, 1);
        }
        assertThat(issue(full, "late", 1).code()).isEqualTo("HOLDS_FULL");
        assertThat(issue(other, "late", 1).status()).isEqualTo(201);
        assertThat(redisCounter(full)).isEqualTo(10 - MAX_HOLDS);
        assertThat(redisCounter(other)).isEqualTo(9);
    }
}
