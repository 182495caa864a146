package io.flashstock.order.token;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.flashstock.order.stock.Gate;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The token gate against real Redis and MariaDB: issuing takes the units, redeeming writes the order and its outbox
 * row under the token's id, a token used again answers its first order, and bad tokens change nothing.
 */
class TokenGateIT extends TokenGateTest {

    /** order-api's pool hands out non-autocommit connections: a write stands only once committed. */
    @Autowired
    private TransactionTemplate transaction;
    @Autowired
    private io.micrometer.core.instrument.MeterRegistry meters;
    @Autowired
    private IssueToken issuer;

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "token");
        registry.add("flashstock.token.key", () -> KEY);
        registry.add("flashstock.token.settle-after", () -> "2s");
    }

    @Test
    void aTokenWhoseOrderIsBeingWrittenIsInUse() {
        String item = uniqueItem("token-in-use");
        tokenStock(item, 5, null);
        String token = token(item, "ann", 1);
        ordering(item, idOf(token), redisMillis());

        var answer = redeem(token, item, "ann", 1);

        assertThat(answer.status()).as("%s", answer).isEqualTo(409);
        assertThat(answer.code()).isEqualTo("TOKEN_IN_USE");
        assertThat(orderCount(item)).isZero();
        assertThat(redisCounter(item)).isEqualTo(4);
    }

    @Test
    void aTokenWhoseAttemptWasAbandonedIsSettledAndServed() {
        String item = uniqueItem("token-abandoned");
        tokenStock(item, 5, null);
        String token = token(item, "ann", 2);
        // an attempt that went ordering 5 s ago and never came back: past settle-after (2 s)
        ordering(item, idOf(token), redisMillis() - 5_000);

        var answer = redeem(token, item, "ann", 2);

        assertThat(answer.status()).as("%s", answer).isEqualTo(200);
        assertThat(answer.json().get("orderCode").asString()).isEqualTo(idOf(token));
        assertThat(orderedQuantity(item)).isEqualTo(2);
        assertThat(redisCounter(item)).as("recounted: 5 − 2, the held units counted once").isEqualTo(3);
        assertThat(holds(item)).isZero();
    }

    @Test
    void anIssueSentAgainIsAnsweredWithTheTokenOfItsHold() {
        String item = uniqueItem("token-replay");
        tokenStock(item, 5, null);
        String id = UUID.randomUUID().toString();

        // the same issue twice, as Lettuce sends a command again after a reconnect: the take record answers it
        var first = issuer.issue(item, "ann", 2, id);
        var again = issuer.issue(item, "ann", 2, id);

        assertThat(first).isInstanceOf(IssueToken.Issued.class);
        assertThat(again).as("%s", again).isInstanceOf(IssueToken.Issued.class);
        var issued = (IssueToken.Issued) first;
        var replayed = (IssueToken.Issued) again;
        assertThat(replayed.claims()).isEqualTo(issued.claims());
        assertThat(idOf(replayed.token())).isEqualTo(id);
        assertThat(holds(item)).as("one hold").isEqualTo(1);
        assertThat(redisCounter(item)).as("taken once").isEqualTo(3);
        var order = redeem(replayed.token(), item, "ann", 2);
        assertThat(order.status()).as("%s", order).isEqualTo(200);
        assertThat(orderedQuantity(item)).isEqualTo(2);
    }

    @Test
    void issuingTakesTheUnitsAndRedeemingWritesTheOrderAndItsOutboxRow() {
        String item = uniqueItem("token-flow");
        tokenStock(item, 5, null);

        var issued = issue(item, "ann", 2);
        assertThat(issued.status()).as("%s", issued).isEqualTo(201);
        assertThat(issued.json().get("itemCode").asString()).isEqualTo(item);
        assertThat(issued.json().get("userId").asString()).isEqualTo("ann");
        assertThat(issued.json().get("quantity").asInt()).isEqualTo(2);
        Instant expiresAt = Instant.parse(issued.json().get("expiresAt").asString());
        assertThat(expiresAt).isAfter(Instant.now().plusSeconds(30));
        assertThat(expiresAt.getNano()).as("a JWT's exp is in whole seconds").isZero();
        String token = issued.json().get("token").asString();
        assertThat(redisCounter(item)).isEqualTo(3);
        assertThat(hold(item, idOf(token))).startsWith("i:2:1:");
        assertThat(orderCount(item)).isZero();

        var order = redeem(token, item, "ann", 2);
        assertThat(order.status()).as("%s", order).isEqualTo(200);
        String orderCode = order.json().get("orderCode").asString();
        assertThat(orderCode).isEqualTo(idOf(token));
        assertThat(order.json().get("remaining").asLong()).isEqualTo(3);
        assertThat(orderedQuantity(item)).isEqualTo(2);
        assertThat(outboxStatus(orderCode)).isEqualTo("NEW");
        assertThat(hold(item, orderCode)).as("the hold is the order now").isNull();
        assertThat(redisCounter(item)).isEqualTo(3);
    }

    @Test
    void threeHundredUsersAtOnceForAHundredUnitsBuyExactlyAHundred() throws Exception {
        String item = uniqueItem("token-spike");
        tokenStock(item, 100, null);
        double acceptedBefore = meters.counter("flashstock.orders", "gate", "token", "outcome", "accepted").count();

        var issued = concurrently(50, 300, n -> issue(item, "user-" + n, 1));
        var orders = concurrently(50, 300, n -> issued.get(n).status() == 201
                ? redeem(issued.get(n).json().get("token").asString(), item, "user-" + n, 1) : issued.get(n));

        assertThat(issued.stream().filter(a -> a.status() == 201)).hasSize(100);
        assertThat(issued.stream().filter(a -> a.status() != 201)).allSatisfy(a ->
                assertThat(a.code()).as("%s", a).isEqualTo("SOLD_OUT"));
        assertThat(orders.stream().filter(a -> a.status() == 200)).hasSize(100);
        assertThat(orderedQuantity(item)).isEqualTo(100);
        assertThat(redisCounter(item)).isZero();
        assertThat(holds(item)).isZero();
        assertThat(meters.counter("flashstock.orders", "gate", "token", "outcome", "accepted").count()
                - acceptedBefore).isEqualTo(100);
    }

    @Test
    void aTokenUsedAgainAnswersItsFirstOrder() {
        String item = uniqueItem("token-reuse");
        tokenStock(item, 5, null);
        String token = token(item, "ann", 1);

        var first = redeem(token, item, "ann", 1);
        var second = redeem(token, item, "ann", 1);

        assertThat(first.status()).as("%s", first).isEqualTo(200);
        assertThat(second.status()).as("%s", second).isEqualTo(200);
        assertThat(second.json().get("orderCode").asString()).isEqualTo(first.json().get("orderCode").asString());
        assertThat(orderCount(item)).isEqualTo(1);
        assertThat(redisCounter(item)).isEqualTo(4);
    }

    @Test
    void aRefusedTokenIsCountedOnceUnderTheTokenGate() {
        String item = uniqueItem("token-counted");
        tokenStock(item, 5, null);
        double tokenBefore = rejected("token");
        double redisBefore = rejected("redis");

        var answer = redeem("garbage", item, "ann", 1);

        assertThat(answer.code()).isEqualTo("TOKEN_INVALID");
        assertThat(rejected("token") - tokenBefore).isEqualTo(1.0);
        assertThat(rejected("redis") - redisBefore).as("not again under the endpoint's own gate").isZero();
    }

    private double rejected(String gate) {
        return meters.counter("flashstock.orders", "gate", gate, "outcome", "rejected").count();
    }

    private double counted(String outcome) {
        return meters.counter("flashstock.orders", "gate", "token", "outcome", outcome).count();
    }

    @Test
    void forgedAndGarbledTokensAreRefusedAndChangeNothing() {
        String item = uniqueItem("token-forged");
        tokenStock(item, 5, null);
        String token = token(item, "ann", 1);
        String id = idOf(token);
        var forger = new TokenCodec("an-attacker-key-0123456789abcdef".getBytes(), Clock.systemUTC());
        String forged = forger.sign(new PurchaseToken(id, item, "ann", 1, 1, Instant.now().plusSeconds(60)));
        String[] parts = token.split("\\.");
        String unsigned = parts[0].replace(parts[0], "eyJhbGciOiJub25lIn0") + "." + parts[1] + ".";

        for (String bad : new String[]{forged, "garbage", unsigned, token.substring(0, token.length() - 2)}) {
            var answer = redeem(bad, item, "ann", 1);
            assertThat(answer.status()).as("%s", answer).isEqualTo(401);
            assertThat(answer.contentType()).startsWith("application/problem+json");
            assertThat(answer.code()).isEqualTo("TOKEN_INVALID");
        }
        var notBearer = api().order(item, "ann", 1, "Authorization", "Basic YW5uOnB3");
        assertThat(notBearer.code()).as("no token: a plain order, %s", notBearer).isEqualTo("WRONG_GATE");

        assertThat(orderCount(item)).isZero();
        assertThat(redisCounter(item)).isEqualTo(4);
        assertThat(hold(item, id)).startsWith("i:");
        assertThat(redeem(token, item, "ann", 1).status()).as("the real token still works").isEqualTo(200);
    }

    @Test
    void aTokenForAnotherOrderIsRefusedAndChangesNothing() {
        String item = uniqueItem("token-mismatch");
        String other = uniqueItem("token-other");
        tokenStock(item, 5, null);
        tokenStock(other, 5, null);
        String token = token(item, "ann", 2);

        var otherItem = redeem(token, other, "ann", 2);
        var otherUser = redeem(token, item, "bob", 2);
        var otherQuantity = redeem(token, item, "ann", 1);

        for (var answer : new io.flashstock.order.ApiClient.Answer[]{otherItem, otherUser, otherQuantity}) {
            assertThat(answer.status()).as("%s", answer).isEqualTo(403);
            assertThat(answer.code()).isEqualTo("TOKEN_MISMATCH");
        }
        assertThat(orderCount(item) + orderCount(other)).isZero();
        assertThat(redisCounter(item)).isEqualTo(3);
        assertThat(redisCounter(other)).isEqualTo(5);
        assertThat(hold(item, idOf(token))).startsWith("i:");
    }

    @Test
    void aTokenReSignedForMoreUnitsOrAnotherUserIsRefusedAndChangesNothing() throws Exception {
        String item = uniqueItem("token-resigned");
        tokenStock(item, 200, null);
        String token = token(item, "ann", 1);
        String id = idOf(token);
        // whoever holds the signing key (a leaked key, a published development key) re-signs a real token's copy
        String moreUnits = reSigned(token, claims -> claims.claim("qty", 100));
        String otherUser = reSigned(token, claims -> claims.subject("mallory"));

        var more = redeem(moreUnits, item, "ann", 100);
        var other = redeem(otherUser, item, "mallory", 1);

        for (var answer : new io.flashstock.order.ApiClient.Answer[]{more, other}) {
            assertThat(answer.status()).as("%s", answer).isEqualTo(403);
            assertThat(answer.contentType()).startsWith("application/problem+json");
            assertThat(answer.code()).isEqualTo("TOKEN_MISMATCH");
        }
        assertThat(orderCount(item)).isZero();
        assertThat(redisCounter(item)).as("only the real hold's unit taken").isEqualTo(199);
        assertThat(hold(item, id)).as("the hold stays issued").startsWith("i:1:");
        var real = redeem(token, item, "ann", 1);
        assertThat(real.status()).as("the real token still works: %s", real).isEqualTo(200);
        assertThat(orderedQuantity(item)).isEqualTo(1);
        assertThat(redisCounter(item)).isEqualTo(199);
    }

    /** The token's claims, changed by {@code change}, signed again with the service's own key. */
    private static String reSigned(String token, java.util.function.UnaryOperator<JWTClaimsSet.Builder> change)
            throws Exception {
        var original = SignedJWT.parse(token);
        var copy = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256),
                change.apply(new JWTClaimsSet.Builder(original.getJWTClaimsSet())).build());
        copy.sign(new MACSigner(KEY_BYTES));
        return copy.serialize();
    }

    @Test
    void anExpiredTokenIsRefusedAndChangesNothing() {
        String item = uniqueItem("token-expired");
        tokenStock(item, 5, null);
        String token = token(item, "ann", 1);
        // the same token id, signed with the service's key, but expired a minute ago
        var past = Clock.fixed(Instant.now().minusSeconds(120), ZoneOffset.UTC);
        String expired = new TokenCodec(KEY_BYTES, past).sign(new PurchaseToken(idOf(token), item, "ann", 1, 1,
                Instant.now().minusSeconds(60)));

        var answer = redeem(expired, item, "ann", 1);

        assertThat(answer.status()).as("%s", answer).isEqualTo(401);
        assertThat(answer.code()).isEqualTo("TOKEN_EXPIRED");
        assertThat(orderCount(item)).isZero();
        assertThat(hold(item, idOf(token))).startsWith("i:");
    }

    @Test
    void aTokenWhoseUnitsCameBackIsGone() {
        String item = uniqueItem("token-released");
        tokenStock(item, 5, null);
        // signed by the service's key, of the item's generation, but with no hold: its units came back
        String released = new TokenCodec(KEY_BYTES, Clock.systemUTC()).sign(new PurchaseToken(
                UUID.randomUUID().toString(), item, "ann", 1, 1, Instant.now().plusSeconds(60)));

        var answer = redeem(released, item, "ann", 1);

        assertThat(answer.status()).as("%s", answer).isEqualTo(410);
        assertThat(answer.code()).isEqualTo("TOKEN_RELEASED");
        assertThat(orderCount(item)).isZero();
        assertThat(redisCounter(item)).isEqualTo(5);
    }

    @Test
    void aTokenWhoseHoldRedisLostIsAnsweredOnceTheStockIsRebuilt() {
        String item = uniqueItem("token-lost");
        tokenStock(item, 5, null);
        String token = token(item, "ann", 2);
        assertThat(redeem(token(item, "bob", 1), item, "bob", 1).status()).isEqualTo(200);
        // a Redis restarted without persistence: the item's keys are gone, its token holds with them
        redis.delete(java.util.List.of(io.flashstock.order.stock.StockKeys.counter(item),
                io.flashstock.order.stock.StockKeys.generation(item), io.flashstock.order.stock.StockKeys.load(item),
                io.flashstock.order.stock.StockKeys.life(item), io.flashstock.order.stock.StockKeys.gate(item),
                TokenKeys.holds(item), TokenKeys.expiry(item)));

        double reloadingBefore = counted("stock_reloading");
        double failedBefore = counted("failed");
        var first = redeem(token, item, "ann", 2);
        assertThat(first.status()).as("%s", first).isEqualTo(503);
        assertThat(first.code()).isEqualTo("STOCK_RELOADING");
        assertThat(counted("stock_reloading") - reloadingBefore).as("refused by design").isEqualTo(1.0);
        assertThat(counted("failed") - failedBefore).as("not a failure").isZero();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
                .until(() -> redisCounter(item) != null);
        var after = redeem(token, item, "ann", 2);

        assertThat(after.status()).as("%s", after).isEqualTo(410);
        assertThat(after.code()).isEqualTo("TOKEN_RELEASED");
        assertThat(redisCounter(item)).as("5 − 1 ordered: the lost hold's units are back").isEqualTo(4);
        assertThat(orderedQuantity(item)).isEqualTo(1);
    }

    @Test
    void aResetVoidsTheTokensOfTheOldStock() {
        String item = uniqueItem("token-void");
        tokenStock(item, 5, null);
        String token = token(item, "ann", 2);

        tokenStock(item, 3, null);
        var answer = redeem(token, item, "ann", 2);

        assertThat(answer.status()).as("%s", answer).isEqualTo(410);
        assertThat(answer.code()).isEqualTo("TOKEN_VOID");
        assertThat(orderCount(item)).isZero();
        assertThat(redisCounter(item)).as("the reset's stock, whole").isEqualTo(3);
        assertThat(holds(item)).isZero();
    }

    @Test
    void refusalsAreAnOrdersRefusals() {
        String item = uniqueItem("token-refusals");
        String plain = uniqueItem("token-plain");
        tokenStock(item, 3, 2);
        setStock(plain, 3, null);

        assertThat(issue(item, "ann", 2).status()).isEqualTo(201);
        var limit = issue(item, "ann", 1);
        assertThat(limit.code()).as("%s", limit).isEqualTo("PER_USER_LIMIT_REACHED");
        assertThat(limit.json().get("bought").asLong()).as("token units count").isEqualTo(2);
        var soldOut = issue(item, "bob", 2);
        assertThat(soldOut.status()).isEqualTo(409);
        assertThat(soldOut.code()).as("%s", soldOut).isEqualTo("SOLD_OUT");
        assertThat(soldOut.json().get("remaining").asLong()).isEqualTo(1);
        var wrongGate = issue(plain, "ann", 1);
        assertThat(wrongGate.code()).as("%s", wrongGate).isEqualTo("WRONG_GATE");
        assertThat(wrongGate.json().get("gate").asString()).isEqualTo("redis");
        var plainOrder = api().order(item, "carol", 1);
        assertThat(plainOrder.code()).as("an order without a token: %s", plainOrder).isEqualTo("WRONG_GATE");
        assertThat(plainOrder.json().get("gate").asString()).isEqualTo(Gate.TOKEN.code());
        var unknown = issue(uniqueItem("token-unknown"), "ann", 1);
        assertThat(unknown.status()).as("%s", unknown).isEqualTo(404);
        assertThat(unknown.code()).isEqualTo("UNKNOWN_ITEM");
        var invalid = issue(item, "", 0);
        assertThat(invalid.code()).as("%s", invalid).isEqualTo("INVALID_REQUEST");
        assertThat(redisCounter(item)).isEqualTo(1);
        assertThat(redisCounter(plain)).isEqualTo(3);
    }

    @Test
    void moreUnitsCommittedThanTheBaselineAreNamedOversold() {
        String item = uniqueItem("token-oversold");
        tokenStock(item, 5, null);
        token(item, "cid", 1);
        assertThat(redeem(token(item, "ann", 3), item, "ann", 3).status()).isEqualTo(200);
        assertThat(redeem(token(item, "ben", 1), item, "ben", 1).status()).isEqualTo(200);
        // what only a bug could do: an order past the gate
        transaction.executeWithoutResult(status -> jdbc.sql("INSERT INTO purchase_order (order_code, event_id, "
                        + "item_code, generation, user_id, quantity, remaining, idempotency_key, created_at) "
                        + "VALUES (?, ?, ?, 1, 'eve', 2, -2, NULL, UTC_TIMESTAMP(6))")
                .params(UUID.randomUUID().toString(), UUID.randomUUID().toString(), item).update());

        var report = api().get("/admin/reconciliation?itemCode=" + item, "Authorization", ADMIN).json()
                .get("items").get(0);

        assertThat(report.get("unusedTokens").get("units").asLong()).isEqualTo(1);
        var invariants = report.get("invariants");
        var notOversold = invariants.get(invariants.size() - 1);
        assertThat(notOversold.get("name").asString()).isEqualTo("not-oversold");
        assertThat(notOversold.get("holds").asBoolean()).isFalse();
        assertThat(notOversold.get("difference").asLong()).as("6 units ordered of 5").isEqualTo(1);
        assertThat(invariants.get(0).get("detail").asString()).contains("oversold").doesNotContain("drift");
    }

    @Test
    void aReloadCountsTheUnitsOfUnusedTokensAndTheReconciliationNamesThem() {
        String item = uniqueItem("token-reload");
        tokenStock(item, 10, 5);
        String unused = token(item, "ann", 3);
        String used = token(item, "bob", 2);
        assertThat(redeem(used, item, "bob", 2).status()).isEqualTo(200);

        var reloaded = reload(item);

        assertThat(reloaded.status()).as("%s", reloaded).isEqualTo(200);
        assertThat(redisCounter(item)).as("10 − 2 ordered − 3 held").isEqualTo(5);
        assertThat(reloaded.json().get("tokenHeldUnits").asLong()).isEqualTo(3);
        assertThat(reloaded.json().get("drift").asLong()).as("held units are no drift").isZero();
        var report = api().get("/admin/reconciliation?itemCode=" + item, "Authorization", ADMIN).json()
                .get("items").get(0);
        assertThat(report.get("unusedTokens").get("count").asLong()).isEqualTo(1);
        assertThat(report.get("unusedTokens").get("units").asLong()).isEqualTo(3);
        var redisInvariant = report.get("invariants").get(0);
        assertThat(redisInvariant.get("name").asString()).isEqualTo("redis-matches-orders");
        assertThat(redisInvariant.get("holds").asBoolean()).as("%s", redisInvariant).isTrue();
        // the per-user limit still counts ann's held units after the reload
        assertThat(issue(item, "ann", 3).code()).isEqualTo("PER_USER_LIMIT_REACHED");
        assertThat(redeem(unused, item, "ann", 3).status()).as("the token survives the reload").isEqualTo(200);
        assertThat(redisCounter(item)).isEqualTo(5);
        assertThat(orderedQuantity(item)).isEqualTo(5);
    }
}
