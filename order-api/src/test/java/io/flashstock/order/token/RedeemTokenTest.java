package io.flashstock.order.token;

import io.flashstock.order.placement.commit.OrderWrites;
import io.flashstock.order.placement.core.OrderAnswer;
import io.flashstock.order.placement.core.OrderMetrics;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.StockReload;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.refusal.Refusal;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;

import static io.flashstock.order.UseCaseAssertions.assertProblem;
import static io.flashstock.order.UseCaseAssertions.ordersCounted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

/**
 * The redemption of a purchase token, with Redis and the database faked: the holds, the order writes, the
 * settlement and the reloads are mocks, the codec and the meters are real. Each case pins the answer, what happened
 * to the hold, and the one {@code flashstock.orders} counter it moves (or that it moves none).
 */
class RedeemTokenTest {

    private static final Instant NOW = Instant.parse("2026-11-26T16:00:00Z");
    private static final String ITEM = "sneaker";
    private static final String TOKEN_ID = "0193a1b2-token";
    private static final String ATTEMPT = "attempt-1";
    private static final byte[] KEY = "redeem-token-test-key-0123456789".getBytes(StandardCharsets.US_ASCII);
    private static final Duration SETTLE_AFTER = Duration.ofSeconds(30);

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final TokenCodec codec = new TokenCodec(KEY, Clock.fixed(NOW, ZoneOffset.UTC));
    private final TokenHolds holds = mock(TokenHolds.class);
    private final OrderWrites orders = mock(OrderWrites.class);
    private final TokenSettlement settlement = mock(TokenSettlement.class);
    private final StockReload reloads = mock(StockReload.class);
    private final RedeemToken redeemToken;

    private final PurchaseToken token = new PurchaseToken(TOKEN_ID, ITEM, "alice", 2, 3, NOW.plusSeconds(60));
    private final String bearer = "Bearer " + codec.sign(token);
    private final OrderAnswer answer = new OrderAnswer(TOKEN_ID, ITEM, 2, 7);

    RedeemTokenTest() {
        when(orders.outcomes(Gate.TOKEN)).thenReturn(new OrderMetrics(meters).of(Gate.TOKEN));
        redeemToken = new RedeemToken(Optional.of(codec), holds, orders, settlement, reloads, settings());
    }

    @Test
    void aStartedHoldBecomesTheHoldsOrderAndIsDeleted() {
        when(holds.startOrdering(token)).thenReturn(started());
        when(orders.write(TOKEN_ID, ITEM, "alice", 2, 3, 11, 7)).thenReturn(new OrderWrites.Written.Committed(answer));

        var answered = redeemToken.redeem(bearer, ITEM, "alice", 2);

        assertThat(answered).isEqualTo(answer);
        verify(holds).written(ITEM, TOKEN_ID);
        verify(holds, never()).retry(anyString(), anyString(), anyString());
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token accepted", 1.0));
    }

    @Test
    void theOrderIsTheHoldsUserAndQuantityNotTheTokensWord() {
        when(holds.startOrdering(token)).thenReturn(new TokenHolds.Redeem.Started(11, 3, 7, ATTEMPT, "bob", 1));
        when(orders.write(TOKEN_ID, ITEM, "bob", 1, 3, 11, 7)).thenReturn(new OrderWrites.Written.Committed(answer));

        redeemToken.redeem(bearer, ITEM, "alice", 2);

        verify(orders).write(TOKEN_ID, ITEM, "bob", 1, 3, 11, 7);
    }

    @Test
    void aHoldNotDeletedAfterItsOrderWasWrittenStillAnswersTheOrder() {
        when(holds.startOrdering(token)).thenReturn(started());
        when(orders.write(TOKEN_ID, ITEM, "alice", 2, 3, 11, 7)).thenReturn(new OrderWrites.Written.Committed(answer));
        doThrow(new RefusedException(Refusal.REDIS_UNAVAILABLE, "redis down"))
                .when(holds).written(ITEM, TOKEN_ID);

        assertThat(redeemToken.redeem(bearer, ITEM, "alice", 2)).isEqualTo(answer);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token accepted", 1.0));
    }

    @Test
    void aTokenForAnotherOrderIsRefusedAndTouchesNothing() {
        assertProblem(() -> redeemToken.redeem(bearer, ITEM, "alice", 3), Refusal.TOKEN_MISMATCH);
        assertProblem(() -> redeemToken.redeem(bearer, ITEM, "mallory", 2), Refusal.TOKEN_MISMATCH);
        assertProblem(() -> redeemToken.redeem(bearer, "other", "alice", 2), Refusal.TOKEN_MISMATCH);

        verifyNoInteractions(holds, settlement, reloads);
        assertThat(ordersCounted(meters)).isEmpty();
    }

    @Test
    void aTokenNotSentAsBearerOrNotOursIsInvalid() {
        assertProblem(() -> redeemToken.redeem(codec.sign(token), ITEM, "alice", 2), Refusal.TOKEN_INVALID);
        var otherKey = new TokenCodec("another-key-of-32-bytes-012345678".getBytes(StandardCharsets.US_ASCII),
                Clock.fixed(NOW, ZoneOffset.UTC));
        assertProblem(() -> redeemToken.redeem("Bearer " + otherKey.sign(token), ITEM, "alice", 2),
                Refusal.TOKEN_INVALID);
        verifyNoInteractions(holds);

        when(holds.startOrdering(token)).thenReturn(new TokenHolds.Redeem.Mismatch());
        assertProblem(() -> redeemToken.redeem("bearer " + codec.sign(token), ITEM, "alice", 2),
                Refusal.TOKEN_MISMATCH);
        verify(holds).startOrdering(token);
    }

    @Test
    void anExpiredTokenIsRefusedBeforeRedis() {
        var expired = "Bearer " + codec.sign(new PurchaseToken(TOKEN_ID, ITEM, "alice", 2, 3, NOW.minusSeconds(1)));

        assertProblem(() -> redeemToken.redeem(expired, ITEM, "alice", 2), Refusal.TOKEN_EXPIRED);
        verifyNoInteractions(holds);
    }

    @Test
    void withoutAKeyTheTokenGateIsDisabled() {
        var disabled = new RedeemToken(Optional.empty(), holds, orders, settlement, reloads, settings());

        assertThat(disabled.enabled()).isFalse();
        assertThat(redeemToken.enabled()).isTrue();
        assertProblem(() -> disabled.redeem(bearer, ITEM, "alice", 2), Refusal.TOKEN_GATE_DISABLED);
    }

    @Test
    void aTokenUsedAgainIsAnsweredWithItsFirstOrder() {
        when(holds.startOrdering(token)).thenReturn(new TokenHolds.Redeem.Absent("3"));
        when(orders.find(TOKEN_ID)).thenReturn(Optional.of(answer));

        assertThat(redeemToken.redeem(bearer, ITEM, "alice", 2)).isEqualTo(answer);
        verify(orders, never()).write(anyString(), anyString(), anyString(), anyInt(), anyLong(), anyLong(), anyLong());
        assertThat(ordersCounted(meters)).isEmpty();
    }

    @Test
    void anAbsentHoldWithoutOrderOfTheTokensGenerationWasReleased() {
        when(holds.startOrdering(token)).thenReturn(new TokenHolds.Redeem.Absent("3"));
        when(orders.find(TOKEN_ID)).thenReturn(Optional.empty());

        assertProblem(() -> redeemToken.redeem(bearer, ITEM, "alice", 2), Refusal.TOKEN_RELEASED);
    }

    @Test
    void anAbsentHoldWithoutOrderOfAnotherGenerationIsVoid() {
        when(holds.startOrdering(token)).thenReturn(new TokenHolds.Redeem.Absent("4"));
        when(orders.find(TOKEN_ID)).thenReturn(Optional.empty());

        assertProblem(() -> redeemToken.redeem(bearer, ITEM, "alice", 2), Refusal.TOKEN_VOID);
    }

    @Test
    void anItemWhoseKeysRedisLostIsRebuiltBeforeTheTokenIsAnswered() {
        when(holds.startOrdering(token)).thenReturn(new TokenHolds.Redeem.Absent(""));
        when(orders.find(TOKEN_ID)).thenReturn(Optional.empty());

        var problem = assertProblem(() -> redeemToken.redeem(bearer, ITEM, "alice", 2), Refusal.STOCK_RELOADING);

        assertThat(problem.getMessage()).isEqualTo("the stock of item " + ITEM
                + " is being rebuilt from the orders; nothing was sold: retry shortly with the same token");
        verify(reloads).heal(ITEM);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token stock_reloading", 1.0));
    }

    @Test
    void theOrdersDatabaseDownWhileLookingUpTheFirstOrderIsSaid() {
        when(holds.startOrdering(token)).thenReturn(new TokenHolds.Redeem.Absent("3"));
        when(orders.find(TOKEN_ID)).thenThrow(new DataAccessResourceFailureException("down"));

        assertProblem(() -> redeemToken.redeem(bearer, ITEM, "alice", 2), Refusal.DATABASE_UNAVAILABLE);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token failed", 1.0));
    }

    @Test
    void anAttemptStillWithinItsTimeIsInUse() {
        when(holds.startOrdering(token)).thenReturn(new TokenHolds.Redeem.Ordering(ATTEMPT, 1_000, 1_000
                + SETTLE_AFTER.toMillis()));

        var problem = assertProblem(() -> redeemToken.redeem(bearer, ITEM, "alice", 2), Refusal.TOKEN_IN_USE);
        assertThat(problem.properties()).containsEntry("orderCode", TOKEN_ID);
        verifyNoInteractions(settlement);
    }

    @Test
    void anAttemptPastItsTimeIsSettledAndTheTokenRedeemedOnce() {
        when(holds.startOrdering(token)).thenReturn(
                new TokenHolds.Redeem.Ordering(ATTEMPT, 1_000, 1_001 + SETTLE_AFTER.toMillis()), started());
        when(settlement.settle(ITEM, Map.of(TOKEN_ID, ATTEMPT))).thenReturn(true);
        when(orders.write(TOKEN_ID, ITEM, "alice", 2, 3, 11, 7)).thenReturn(new OrderWrites.Written.Committed(answer));

        assertThat(redeemToken.redeem(bearer, ITEM, "alice", 2)).isEqualTo(answer);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token accepted", 1.0));
    }

    @Test
    void anAttemptSettledButStillOrderingIsNotSettledTwice() {
        var ordering = new TokenHolds.Redeem.Ordering(ATTEMPT, 1_000, 1_001 + SETTLE_AFTER.toMillis());
        when(holds.startOrdering(token)).thenReturn(ordering, ordering);
        when(settlement.settle(ITEM, Map.of(TOKEN_ID, ATTEMPT))).thenReturn(true);

        assertProblem(() -> redeemToken.redeem(bearer, ITEM, "alice", 2), Refusal.TOKEN_IN_USE);
        verify(settlement).settle(ITEM, Map.of(TOKEN_ID, ATTEMPT));
    }

    @Test
    void aHoldOfAnotherUserOrQuantityIsAMismatch() {
        when(holds.startOrdering(token)).thenReturn(new TokenHolds.Redeem.Mismatch());

        assertProblem(() -> redeemToken.redeem(bearer, ITEM, "alice", 2), Refusal.TOKEN_MISMATCH);
        assertThat(ordersCounted(meters)).isEmpty();
    }

    @Test
    void aHoldExpiredOrVoidOrAnUntrustedCounterIsSaid() {
        when(holds.startOrdering(token)).thenReturn(new TokenHolds.Redeem.Expired(), new TokenHolds.Redeem.Void(),
                new TokenHolds.Redeem.Untrusted());

        assertProblem(() -> redeemToken.redeem(bearer, ITEM, "alice", 2), Refusal.TOKEN_EXPIRED);
        assertProblem(() -> redeemToken.redeem(bearer, ITEM, "alice", 2), Refusal.TOKEN_VOID);
        verifyNoInteractions(reloads);
        assertProblem(() -> redeemToken.redeem(bearer, ITEM, "alice", 2), Refusal.STOCK_RELOADING);
        verify(reloads).heal(ITEM);
    }

    @Test
    void anOrderFencedByARebuildGivesTheHoldBackToTheToken() {
        when(holds.startOrdering(token)).thenReturn(started());
        when(orders.write(TOKEN_ID, ITEM, "alice", 2, 3, 11, 7)).thenReturn(new OrderWrites.Written.Fenced());

        assertProblem(() -> redeemToken.redeem(bearer, ITEM, "alice", 2), Refusal.STOCK_RELOADING);
        verify(holds).retry(ITEM, TOKEN_ID, ATTEMPT);
        verify(holds, never()).written(anyString(), anyString());
        verify(reloads).heal(ITEM);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token stock_reloading", 1.0));
    }

    @Test
    void anOrderNotWrittenGivesTheHoldBackToTheToken() {
        var cause = new RefusedException(Refusal.DATABASE_UNAVAILABLE, "down");
        when(holds.startOrdering(token)).thenReturn(started());
        when(orders.write(TOKEN_ID, ITEM, "alice", 2, 3, 11, 7)).thenReturn(new OrderWrites.Written.NotWritten(cause));

        assertThatThrownBy(() -> redeemToken.redeem(bearer, ITEM, "alice", 2)).isSameAs(cause);
        verify(holds).retry(ITEM, TOKEN_ID, ATTEMPT);
        verify(holds, never()).written(anyString(), anyString());
        verifyNoInteractions(reloads);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token failed", 1.0));
    }

    @Test
    void anOrderWhoseCommitIsUnknownLeavesTheHoldOrderingForItsSettlement() {
        var cause = new QueryTimeoutException("no answer");
        when(holds.startOrdering(token)).thenReturn(started());
        when(orders.write(TOKEN_ID, ITEM, "alice", 2, 3, 11, 7)).thenReturn(new OrderWrites.Written.Unknown(cause));

        assertThatThrownBy(() -> redeemToken.redeem(bearer, ITEM, "alice", 2)).isSameAs(cause);
        verify(holds, never()).retry(anyString(), anyString(), anyString());
        verify(holds, never()).written(anyString(), anyString());
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token failed", 1.0));
    }

    @Test
    void anOrderAlreadyWrittenByAnEarlierAttemptIsAnsweredAndItsHoldDeleted() {
        when(holds.startOrdering(token)).thenReturn(started());
        when(orders.write(TOKEN_ID, ITEM, "alice", 2, 3, 11, 7)).thenReturn(new OrderWrites.Written.Duplicate());
        when(orders.find(TOKEN_ID)).thenReturn(Optional.of(answer));

        assertThat(redeemToken.redeem(bearer, ITEM, "alice", 2)).isEqualTo(answer);
        verify(holds).written(ITEM, TOKEN_ID);
        assertThat(ordersCounted(meters)).isEmpty();
    }

    @Test
    void redisDownAtTheStartIsAFailure() {
        when(holds.startOrdering(token)).thenThrow(new RefusedException(Refusal.REDIS_UNAVAILABLE, "redis down"));

        assertProblem(() -> redeemToken.redeem(bearer, ITEM, "alice", 2), Refusal.REDIS_UNAVAILABLE);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token failed", 1.0));
        verify(orders, never()).find(any());
    }

    private static TokenHolds.Redeem.Started started() {
        return new TokenHolds.Redeem.Started(11, 3, 7, ATTEMPT, "alice", 2);
    }

    private static TokenSettings settings() {
        return new TokenSettings("", Duration.ofSeconds(60), Duration.ofSeconds(5), Duration.ofSeconds(1),
                SETTLE_AFTER, 10_000);
    }
}
