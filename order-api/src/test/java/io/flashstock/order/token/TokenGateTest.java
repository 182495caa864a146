package io.flashstock.order.token;

import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.stock.Gate;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;

/** What the token gate's integration tests share: the key, and issuing and redeeming through HTTP. */
abstract class TokenGateTest extends OrderApiIntegrationTest {

    static final byte[] KEY_BYTES = "token-gate-it-key-0123456789abcd".getBytes(StandardCharsets.US_ASCII);
    static final String KEY = Base64.getEncoder().encodeToString(KEY_BYTES);

    ApiClient.Answer issue(ApiClient api, String item, String user, int quantity) {
        return api.post(io.flashstock.order.placement.core.GateEndpoints.TOKEN,
                ApiClient.orderJson(item, user, quantity));
    }

    ApiClient.Answer issue(String item, String user, int quantity) {
        return issue(api(), item, user, quantity);
    }

    /** Issues a token and returns it, failing unless it was issued. */
    String token(String item, String user, int quantity) {
        var answer = issue(item, user, quantity);
        assertThat(answer.status()).as("%s", answer).isEqualTo(201);
        return answer.json().get("token").asString();
    }

    ApiClient.Answer redeem(ApiClient api, String token, String item, String user, int quantity) {
        return api.order(item, user, quantity, "Authorization", "Bearer " + token);
    }

    ApiClient.Answer redeem(String token, String item, String user, int quantity) {
        return redeem(api(), token, item, user, quantity);
    }

    void tokenStock(String item, long quantity, Integer perUserLimit) {
        setStock(item, quantity, perUserLimit, Gate.TOKEN);
    }

    /** The hold of the token with this id, as Redis keeps it; null when there is none. */
    String hold(String item, String tokenId) {
        Object value = redis.opsForHash().get(TokenKeys.holds(item), tokenId);
        return value == null ? null : value.toString();
    }

    long holds(String item) {
        return redis.opsForHash().size(TokenKeys.holds(item));
    }

    static String idOf(String token) {
        try {
            return com.nimbusds.jwt.SignedJWT.parse(token).getJWTClaimsSet().getJWTID();
        } catch (java.text.ParseException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** Redis's clock, in ms: the one that decides a hold's expiry and its attempt's age. */
    long redisMillis() {
        Long now = redis.execute((org.springframework.data.redis.core.RedisCallback<Long>) c -> c.serverCommands()
                .time());
        return now;
    }

    /**
     * Makes the token's hold look like an attempt at its order started at {@code attemptMillis} and never came back
     * (its order-api died before writing it).
     */
    void ordering(String item, String tokenId, long attemptMillis) {
        String[] parts = hold(item, tokenId).split(":", 7);
        redis.opsForHash().put(TokenKeys.holds(item), tokenId, "o:" + parts[1] + ":" + parts[2] + ":" + parts[3] + ":"
                + attemptMillis + ":" + parts[5] + ":" + parts[6]);
    }

    String outboxStatus(String orderCode) {
        return jdbc.sql("""
                        SELECT e.status FROM outbox_event e JOIN purchase_order o ON o.event_id = e.event_id
                        WHERE o.order_code = ?""").param(orderCode).query(String.class).single();
    }
}
