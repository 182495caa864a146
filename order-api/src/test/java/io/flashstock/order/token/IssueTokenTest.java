package io.flashstock.order.token;

import io.flashstock.order.placement.RefusalMemory;
import io.flashstock.order.placement.commit.OrderWrites;
import io.flashstock.order.placement.core.OrderMetrics;
import io.flashstock.order.placement.core.Outcome;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.MissingCounters;
import io.flashstock.order.stock.StockItems;
import io.flashstock.order.stock.StockReload;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.refusal.Refusal;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;

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
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

/**
 * The issue of a purchase token, with Redis and the database faked: the holds, the items, the reloads and the
 * refusal memory are mocks, the codec and the meters are real. Each case pins the answer, what is remembered, and
 * the one {@code flashstock.orders} counter it moves (or that it moves none).
 */
class IssueTokenTest {

    private static final Instant NOW = Instant.parse("2026-11-26T16:00:00Z");
    private static final Instant EXPIRES = NOW.plusSeconds(60);
    private static final String ITEM = "sneaker";
    private static final String ID = "0193a1b2-token";
    private static final long HEARD = 41;
    private static final byte[] KEY = "issue-token-test-key-0123456789ab".getBytes(StandardCharsets.US_ASCII);

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final TokenCodec codec = new TokenCodec(KEY, Clock.fixed(NOW, ZoneOffset.UTC));
    private final TokenHolds holds = mock(TokenHolds.class);
    private final StockItems items = mock(StockItems.class);
    private final StockReload reloads = mock(StockReload.class);
    private final RefusalMemory refusals = mock(RefusalMemory.class);
    private final OrderWrites orders = mock(OrderWrites.class);
    private final IssueToken issueToken;

    IssueTokenTest() {
        when(orders.outcomes(Gate.TOKEN)).thenReturn(new OrderMetrics(meters).of(Gate.TOKEN));
        when(refusals.heard()).thenReturn(HEARD);
        issueToken = new IssueToken(Optional.of(codec), holds, new MissingCounters(items, reloads), reloads, orders, refusals);
    }

    @Test
    void aHeldIssueIsSignedForTheHoldsGenerationAndExpiry() {
        when(holds.issue(ITEM, "alice", 2, ID)).thenReturn(new TokenHolds.Issue.Held(8, 3, EXPIRES));

        var outcome = issueToken.issue(ITEM, "alice", 2, ID);

        var claims = new PurchaseToken(ID, ITEM, "alice", 2, 3, EXPIRES);
        assertThat(outcome).isInstanceOfSatisfying(IssueToken.Issued.class, issued -> {
            assertThat(issued.claims()).isEqualTo(claims);
            assertThat(codec.verify(issued.token())).isEqualTo(claims);
        });
        verify(refusals, never()).remember(anyString(), any(), any(), anyLong());
        assertThat(ordersCounted(meters)).isEmpty();
    }

    @Test
    void eachIssueHasItsOwnId() {
        when(holds.issue(anyString(), anyString(), anyInt(), anyString()))
                .thenReturn(new TokenHolds.Issue.Held(8, 3, EXPIRES));

        var first = (IssueToken.Issued) issueToken.issue(ITEM, "alice", 1);
        var second = (IssueToken.Issued) issueToken.issue(ITEM, "alice", 1);

        assertThat(first.claims().id()).isNotEqualTo(second.claims().id());
    }

    @Test
    void aSoldOutItemIsRefusedCountedAndRemembered() {
        when(holds.issue(ITEM, "alice", 2, ID)).thenReturn(new TokenHolds.Issue.SoldOut(1));

        assertThat(issueToken.issue(ITEM, "alice", 2, ID)).isEqualTo(refused(new Outcome.SoldOut(1)));
        verify(refusals).remember(ITEM, Gate.TOKEN, new Outcome.SoldOut(1), HEARD);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token sold_out", 1.0));
    }

    @Test
    void aUserAtTheLimitIsRefusedAndCounted() {
        when(holds.issue(ITEM, "alice", 2, ID)).thenReturn(new TokenHolds.Issue.LimitReached(3, 4));

        assertThat(issueToken.issue(ITEM, "alice", 2, ID)).isEqualTo(refused(new Outcome.LimitReached(3, 4)));
        verify(refusals).remember(ITEM, Gate.TOKEN, new Outcome.LimitReached(3, 4), HEARD);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token limit_reached", 1.0));
    }

    @Test
    void anItemOfAnotherGateIsRefused() {
        when(holds.issue(ITEM, "alice", 2, ID)).thenReturn(new TokenHolds.Issue.WrongGate(Gate.REDIS));

        assertThat(issueToken.issue(ITEM, "alice", 2, ID)).isEqualTo(refused(new Outcome.WrongGate(Gate.REDIS)));
        verify(refusals).remember(ITEM, Gate.TOKEN, new Outcome.WrongGate(Gate.REDIS), HEARD);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token wrong_gate", 1.0));
    }

    @Test
    void anItemWithAllItsHoldsOutIsRefusedWithRetryAfterAndNotRemembered() {
        when(holds.issue(ITEM, "alice", 2, ID)).thenReturn(new TokenHolds.Issue.HoldsFull(10_000, 2_500));

        var problem = assertProblem(() -> issueToken.issue(ITEM, "alice", 2, ID), Refusal.HOLDS_FULL);

        assertThat(problem.properties()).containsEntry("maxHolds", 10_000L).containsEntry("itemCode", ITEM);
        assertThat(problem.retryAfter()).isEqualTo(Duration.ofMillis(2_500));
        verify(refusals, never()).remember(anyString(), any(), any(), anyLong());
        assertThat(ordersCounted(meters)).isEmpty();
    }

    @Test
    void anUntrustedCounterIsRebuiltAndNoTokenIssued() {
        when(holds.issue(ITEM, "alice", 2, ID)).thenReturn(new TokenHolds.Issue.Untrusted());

        var problem = assertProblem(() -> issueToken.issue(ITEM, "alice", 2, ID), Refusal.STOCK_RELOADING);

        assertThat(problem.getMessage()).isEqualTo("the stock of item " + ITEM
                + " is being rebuilt from the orders; no token was issued: retry shortly");
        verify(reloads).heal(ITEM);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token stock_reloading", 1.0));
    }

    @Test
    void noCounterAndNoItemIsAnUnknownItem() {
        when(holds.issue(ITEM, "alice", 2, ID)).thenReturn(new TokenHolds.Issue.Unknown());
        when(items.gate(ITEM)).thenReturn(Optional.empty());

        assertThat(issueToken.issue(ITEM, "alice", 2, ID)).isEqualTo(refused(new Outcome.UnknownItem()));
        verify(refusals).remember(ITEM, Gate.TOKEN, new Outcome.UnknownItem(), HEARD);
        verifyNoInteractions(reloads);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token unknown_item", 1.0));
    }

    @Test
    void noCounterForADbLockItemIsTheWrongGate() {
        when(holds.issue(ITEM, "alice", 2, ID)).thenReturn(new TokenHolds.Issue.Unknown());
        when(items.gate(ITEM)).thenReturn(Optional.of(Gate.DB_LOCK));

        assertThat(issueToken.issue(ITEM, "alice", 2, ID)).isEqualTo(refused(new Outcome.WrongGate(Gate.DB_LOCK)));
        verifyNoInteractions(reloads);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token wrong_gate", 1.0));
    }

    @Test
    void aCounterRedisLostIsRebuilt() {
        when(holds.issue(ITEM, "alice", 2, ID)).thenReturn(new TokenHolds.Issue.Unknown());
        when(items.gate(ITEM)).thenReturn(Optional.of(Gate.TOKEN));

        assertProblem(() -> issueToken.issue(ITEM, "alice", 2, ID), Refusal.STOCK_RELOADING);
        verify(reloads).heal(ITEM);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token stock_reloading", 1.0));
    }

    @Test
    void theDatabaseDownWhileLookingUpTheItemIsAFailure() {
        when(holds.issue(ITEM, "alice", 2, ID)).thenReturn(new TokenHolds.Issue.Unknown());
        when(items.gate(ITEM)).thenThrow(new DataAccessResourceFailureException("down"));

        assertProblem(() -> issueToken.issue(ITEM, "alice", 2, ID), Refusal.DATABASE_UNAVAILABLE);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token failed", 1.0));
    }

    @Test
    void redisDownIsAFailure() {
        when(holds.issue(ITEM, "alice", 2, ID)).thenThrow(new RefusedException(Refusal.REDIS_UNAVAILABLE, "down"));

        assertProblem(() -> issueToken.issue(ITEM, "alice", 2, ID), Refusal.REDIS_UNAVAILABLE);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token failed", 1.0));
    }

    @Test
    void aRememberedRefusalIsAnsweredWithoutRedisAndCountedAsTheGateWould() {
        when(refusals.recall(ITEM, Gate.TOKEN, 2)).thenReturn(Optional.of(new Outcome.SoldOut(0)),
                Optional.of(new Outcome.WrongGate(Gate.QUEUE)), Optional.of(new Outcome.UnknownItem()));

        assertThat(issueToken.issue(ITEM, "alice", 2, ID)).isEqualTo(refused(new Outcome.SoldOut(0)));
        assertThat(issueToken.issue(ITEM, "alice", 2, ID)).isEqualTo(refused(new Outcome.WrongGate(Gate.QUEUE)));
        assertThat(issueToken.issue(ITEM, "alice", 2, ID)).isEqualTo(refused(new Outcome.UnknownItem()));

        verifyNoInteractions(holds);
        assertThat(ordersCounted(meters)).containsExactly(Map.entry("token sold_out", 1.0), Map.entry("token unknown_item", 1.0),
                Map.entry("token wrong_gate", 1.0));
    }

    @Test
    void withoutAKeyNoTokenIsIssued() {
        var disabled = new IssueToken(Optional.empty(), holds, new MissingCounters(items, reloads), reloads, orders, refusals);

        assertProblem(() -> disabled.issue(ITEM, "alice", 2, ID), Refusal.TOKEN_GATE_DISABLED);
        verifyNoInteractions(holds);
    }

    private static IssueToken.Refused refused(Outcome refusal) {
        return new IssueToken.Refused(refusal);
    }
}
