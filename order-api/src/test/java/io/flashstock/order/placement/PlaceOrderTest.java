package io.flashstock.order.placement;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.order.placement.commit.CheckedCommit;
import io.flashstock.order.placement.commit.DurableIdempotencyKeys;
import io.flashstock.order.placement.commit.FakeBatchWriter;
import io.flashstock.order.placement.commit.GroupCommit;
import io.flashstock.order.placement.commit.OrderRows;
import io.flashstock.order.placement.core.FirstAnswer;
import io.flashstock.order.placement.core.OrderAnswer;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.OrderMetrics;
import io.flashstock.order.placement.core.Outcome;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.placement.core.TestSettings;
import io.flashstock.order.placement.gate.AbandonedKeys;
import io.flashstock.order.placement.gate.GateResult;
import io.flashstock.order.placement.gate.RedisStockGate;
import io.flashstock.order.placement.gate.TakenStock;
import io.flashstock.order.placement.guard.DatabaseBreaker;
import io.flashstock.order.placement.indoubt.InDoubtOrders;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.MissingCounters;
import io.flashstock.order.stock.StockItems;
import io.flashstock.order.stock.StockReload;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.refusal.Refusal;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

import static io.flashstock.order.UseCaseAssertions.ordersCounted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

/**
 * The Redis gate's placement of an order, with Redis and the database faked: the gate, the order rows, the items,
 * the reloads and the orders in doubt are mocks; the group commit is real, over a {@link FakeBatchWriter}; the
 * breaker and the meters are real, and each order is counted by the real {@link CountedPlacement}, as the
 * controllers count it. Each case pins the answer and the one {@code flashstock.orders} counter it moves (or that it
 * moves none).
 */
class PlaceOrderTest {

    private static final Instant NOW = Instant.parse("2026-11-24T01:00:00Z");
    private static final String ITEM = "sneaker";
    private static final String WARMUP_ITEM = "warmup-jit";
    private static final String KEY = "key-1";

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final FakeBatchWriter database = new FakeBatchWriter();
    private final RedisStockGate gate = mock(RedisStockGate.class);
    private final TakenStock taken = mock(TakenStock.class);
    private final AbandonedKeys abandonedKeys = mock(AbandonedKeys.class);
    private final OrderRows rows = mock(OrderRows.class);
    private final InDoubtOrders inDoubt = mock(InDoubtOrders.class);
    private final StockItems items = mock(StockItems.class);
    private final StockReload reloads = mock(StockReload.class);
    private final OrderMetrics metrics = new OrderMetrics(meters);
    private final DatabaseBreaker breaker = new DatabaseBreaker(TestSettings.defaults(), meters);
    private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    private final PlaceOrder placeOrder = new PlaceOrder(gate, taken,
            new GroupCommit(database, TestSettings.defaults(), meters),
            new RepeatedOrders(abandonedKeys, rows, new DurableIdempotencyKeys(rows, meters), reloads, clock,
                    TestSettings.defaults()),
            inDoubt, breaker, new MissingCounters(items, reloads), reloads, metrics,
            new RefusalMemory(new RefusalMemorySettings(Duration.ofSeconds(1), 100), meters), clock);

    @Test
    void anOrderTheGateTakesIsWrittenAndAccepted() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Taken(8, 3, 5));
        var command = order("alice", 2, null);

        var outcome = place(command);

        String orderCode = takenOrderCode(command);
        assertThat(outcome).isEqualTo(new Outcome.Accepted(new OrderAnswer(orderCode, ITEM, 2, 8)));
        assertThat(database.written()).singleElement().satisfies(written -> {
            assertThat(written.status()).isEqualTo(OutboxStatus.NEW);
            assertThat(written.order()).extracting(PlacedOrder::orderCode, PlacedOrder::command,
                    PlacedOrder::generation, PlacedOrder::loadEpoch, PlacedOrder::remaining, PlacedOrder::createdAt)
                    .containsExactly(orderCode, command, 3L, 5L, 8L, NOW);
        });
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis accepted", 1.0));
        verify(taken, never()).giveBack(any());
    }

    @Test
    void anOrderTheDoorMarkedAsTheWarmUpsWritesItsOutboxRowAsWarmUp() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Taken(8, 3, 5));

        var outcome = place(new OrderCommand(WARMUP_ITEM, "warmup", 1, null, null, OutboxStatus.WARMUP));

        assertThat(outcome).isInstanceOf(Outcome.Accepted.class);
        assertThat(database.written()).singleElement()
                .satisfies(written -> assertThat(written.status()).isEqualTo(OutboxStatus.WARMUP));
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis accepted", 1.0));
    }

    @Test
    void aSoldOutItemIsAnsweredWithWhatIsLeftAndNothingWritten() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.SoldOut(1));

        assertThat(place(order("alice", 2, null))).isEqualTo(new Outcome.SoldOut(1));

        assertThat(database.attempts()).isZero();
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis sold_out", 1.0));
    }

    @Test
    void aUserPastThePerUserLimitIsAnsweredWithWhatTheyBought() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.LimitReached(4, 5));

        assertThat(place(order("alice", 2, null))).isEqualTo(new Outcome.LimitReached(4, 5));

        assertThat(database.attempts()).isZero();
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis limit_reached", 1.0));
    }

    @Test
    void anItemTheGateSaysIsSoldThroughAnotherGateIsAnsweredWithThatGate() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.WrongGate(Gate.QUEUE));

        assertThat(place(order("alice", 2, null))).isEqualTo(new Outcome.WrongGate(Gate.QUEUE));

        assertThat(database.attempts()).isZero();
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis wrong_gate", 1.0));
    }

    @Test
    void anItemWithNoCounterAndNoStockIsUnknown() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Unknown());
        when(items.gate(ITEM)).thenReturn(Optional.empty());

        assertThat(place(order("alice", 2, null))).isEqualTo(new Outcome.UnknownItem());

        verify(reloads, never()).heal(anyString());
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis unknown_item", 1.0));
    }

    @Test
    void anItemWithNoCounterWhoseGateIsTheDatabaseIsAnsweredWithTheDbLockGate() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Unknown());
        when(items.gate(ITEM)).thenReturn(Optional.of(Gate.DB_LOCK));

        assertThat(place(order("alice", 2, null))).isEqualTo(new Outcome.WrongGate(Gate.DB_LOCK));

        verify(reloads, never()).heal(anyString());
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis wrong_gate", 1.0));
    }

    @Test
    void anItemWhoseCounterRedisLostIsRebuiltAndTheOrderRefusedWithNothingSold() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Unknown());
        when(items.gate(ITEM)).thenReturn(Optional.of(Gate.REDIS));

        assertThat(place(order("alice", 2, null))).isEqualTo(new Outcome.StockReloading());

        verify(reloads).heal(ITEM);
        assertThat(ordersCounted(meters)).as("refused by design, not failed")
                .isEqualTo(Map.of("redis stock_reloading", 1.0));
    }

    @Test
    void anItemThatCannotBeLookedUpIsA503() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Unknown());
        when(items.gate(ITEM)).thenThrow(new DataAccessResourceFailureException("down"));

        assertThatThrownBy(() -> place(order("alice", 2, null)))
                .isInstanceOfSatisfying(RefusedException.class,
                        problem -> assertThat(problem.refusal()).isEqualTo(Refusal.DATABASE_UNAVAILABLE));
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis failed", 1.0));
    }

    @Test
    void anUntrustedCounterIsRebuiltAndTheOrderRefusedWithNothingSold() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Untrusted());

        assertThat(place(order("alice", 2, null))).isEqualTo(new Outcome.StockReloading());

        verify(reloads).heal(ITEM);
        assertThat(database.attempts()).isZero();
        assertThat(ordersCounted(meters)).as("refused by design, not failed")
                .isEqualTo(Map.of("redis stock_reloading", 1.0));
    }

    @Test
    void whileTheBreakerIsOpenAnOrderIsA503AndTakesNothing() {
        openTheBreaker();

        assertThatThrownBy(() -> place(order("alice", 2, null)))
                .isInstanceOfSatisfying(RefusedException.class,
                        problem -> assertThat(problem.refusal()).isEqualTo(Refusal.DATABASE_UNAVAILABLE));
        verifyNoInteractions(gate, taken);
        assertThat(database.attempts()).isZero();
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis failed", 1.0));
    }

    @Test
    void aGateThatRedisCannotRunIsA503() {
        var redisDown = new RefusedException(Refusal.REDIS_UNAVAILABLE, "the stock gate (Redis) did not answer");
        when(gate.take(any(), anyString())).thenThrow(redisDown);

        assertThatThrownBy(() -> place(order("alice", 2, null))).isSameAs(redisDown);
        assertThat(database.attempts()).isZero();
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis failed", 1.0));
    }

    @Test
    void anOrderTheDatabaseDidNotWriteGetsItsStockBackAndIsA503() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Taken(8, 3, 5));
        when(taken.giveBack(any())).thenReturn(true);
        database.rejectEvery(code -> new CheckedCommit.NotWritten(new DataAccessResourceFailureException("down")));
        var command = order("alice", 2, null);

        assertThatThrownBy(() -> place(command))
                .isInstanceOfSatisfying(RefusedException.class,
                        problem -> assertThat(problem.refusal()).isEqualTo(Refusal.DATABASE_UNAVAILABLE));
        String orderCode = takenOrderCode(command);
        verify(taken).giveBack(argThat(order -> order.orderCode().equals(orderCode)));
        assertThat(compensations()).isEqualTo(Map.of("given_back", 1.0));
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis failed", 1.0));
        verifyNoInteractions(inDoubt);
    }

    @Test
    void anOrderNotWrittenForAReasonOfItsOwnGetsItsStockBackAndIsABugNotA503() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Taken(8, 3, 5));
        when(taken.giveBack(any())).thenReturn(true);
        database.rejectEvery(code -> new CheckedCommit.NotWritten(new IllegalArgumentException("no such column")));

        assertThatThrownBy(() -> place(order("alice", 2, null)))
                .isInstanceOf(IllegalStateException.class);
        assertThat(compensations()).isEqualTo(Map.of("given_back", 1.0));
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis failed", 1.0));
    }

    @Test
    void aGiveBackThatFindsNothingToReturnIsCountedAsAFailedCompensation() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Taken(8, 3, 5));
        when(taken.giveBack(any())).thenReturn(false);
        database.rejectEvery(code -> new CheckedCommit.NotWritten(new DataAccessResourceFailureException("down")));

        assertThatThrownBy(() -> place(order("alice", 2, null))).isInstanceOf(RefusedException.class);

        assertThat(compensations()).isEqualTo(Map.of("failed", 1.0));
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis failed", 1.0));
    }

    @Test
    void aGiveBackThatRedisCannotRunIsCountedAsAFailedCompensationAndTheAnswerIsStillA503() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Taken(8, 3, 5));
        when(taken.giveBack(any())).thenThrow(new RedisConnectionFailureException("redis down"));
        database.rejectEvery(code -> new CheckedCommit.NotWritten(new DataAccessResourceFailureException("down")));

        assertThatThrownBy(() -> place(order("alice", 2, null)))
                .isInstanceOfSatisfying(RefusedException.class,
                        problem -> assertThat(problem.refusal()).isEqualTo(Refusal.DATABASE_UNAVAILABLE));
        assertThat(compensations()).isEqualTo(Map.of("failed", 1.0));
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis failed", 1.0));
    }

    @Test
    void aRetryWhoseKeyRedisForgotIsAnsweredFromTheDatabaseWithTheFirstOrder() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Taken(8, 3, 5));
        when(taken.giveBack(any())).thenReturn(true);
        database.rejectEvery(code -> new CheckedCommit.NotWritten(new DuplicateKeyException("uk_item_key")));
        var first = new FirstAnswer(orderCodeMadeAt(NOW.minus(Duration.ofDays(2))), 2, 7, 3, "alice");
        when(rows.firstWithKey(ITEM, KEY)).thenReturn(Optional.of(first));

        var outcome = place(order("alice", 2, KEY));

        assertThat(outcome).isEqualTo(new Outcome.Replayed(new OrderAnswer(first.orderCode(), ITEM, 2, 7)));
        verify(taken).giveBack(any());
        assertThat(compensations()).isEqualTo(Map.of("given_back", 1.0));
        assertThat(lookups()).isEqualTo(Map.of("true", 1.0));
        assertThat(ordersCounted(meters)).as("counted when the first order was written").isEmpty();
    }

    @Test
    void aRetryWhoseKeyRedisForgotAndTheDatabaseHasForAnotherOrderIsAKeyReused() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Taken(8, 3, 5));
        when(taken.giveBack(any())).thenReturn(true);
        database.rejectEvery(code -> new CheckedCommit.NotWritten(new DuplicateKeyException("uk_item_key")));
        var first = new FirstAnswer(orderCodeMadeAt(NOW.minus(Duration.ofDays(2))), 2, 7, 3, "bob");
        when(rows.firstWithKey(ITEM, KEY)).thenReturn(Optional.of(first));

        assertThat(place(order("alice", 2, KEY))).isEqualTo(new Outcome.KeyReused());

        assertThat(compensations()).isEqualTo(Map.of("given_back", 1.0));
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis rejected", 1.0));
    }

    @Test
    void aNewKeyRedisVouchesForIsNeverLookedUpInTheDatabase() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Taken(8, 3, 5));

        assertThat(place(order("alice", 2, KEY))).isInstanceOf(Outcome.Accepted.class);

        verifyNoInteractions(rows);
        verify(gate, never()).takeLookedUp(any(), anyString());
        assertThat(lookups()).isEmpty();
    }

    @Test
    void aKeyRedisCannotVouchForIsAnsweredWithTheFirstOrderTheDatabaseHasAndNothingIsTaken() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.KeyUnvouched());
        var first = new FirstAnswer(orderCodeMadeAt(NOW.minus(Duration.ofHours(2))), 2, 0, 3, "alice");
        when(rows.firstWithKey(ITEM, KEY)).thenReturn(Optional.of(first));

        var outcome = place(order("alice", 2, KEY));

        assertThat(outcome).isEqualTo(new Outcome.Replayed(new OrderAnswer(first.orderCode(), ITEM, 2, 0)));
        verify(gate, never()).takeLookedUp(any(), anyString());
        assertThat(database.attempts()).isZero();
        assertThat(lookups()).isEqualTo(Map.of("true", 1.0));
        assertThat(ordersCounted(meters)).as("counted when the first order was written").isEmpty();
    }

    @Test
    void aKeyRedisCannotVouchForThatTheDatabaseHasForAnotherOrderIsAKeyReused() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.KeyUnvouched());
        var first = new FirstAnswer(orderCodeMadeAt(NOW.minus(Duration.ofHours(2))), 2, 0, 3, "bob");
        when(rows.firstWithKey(ITEM, KEY)).thenReturn(Optional.of(first));

        assertThat(place(order("alice", 2, KEY))).isEqualTo(new Outcome.KeyReused());

        verify(gate, never()).takeLookedUp(any(), anyString());
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis rejected", 1.0));
    }

    @Test
    void aKeyRedisCannotVouchForThatTheDatabaseHasNotIsTakenOnceLookedUp() {
        var command = order("alice", 2, KEY);
        when(gate.take(any(), anyString())).thenReturn(new GateResult.KeyUnvouched());
        when(rows.firstWithKey(ITEM, KEY)).thenReturn(Optional.empty());
        when(gate.takeLookedUp(any(), anyString())).thenReturn(new GateResult.SoldOut(0));

        assertThat(place(command)).isEqualTo(new Outcome.SoldOut(0));

        var calls = inOrder(gate, rows);
        String orderCode = takenOrderCode(command);
        calls.verify(gate).take(command, orderCode);
        calls.verify(rows).firstWithKey(ITEM, KEY);
        calls.verify(gate).takeLookedUp(command, orderCode);
        assertThat(lookups()).isEqualTo(Map.of("false", 1.0));
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis sold_out", 1.0));
    }

    @Test
    void aKeyRedisCannotVouchForThatTheDatabaseCannotLookUpIsA503AndTakesNothing() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.KeyUnvouched());
        when(rows.firstWithKey(ITEM, KEY)).thenThrow(new QueryTimeoutException("slow"));

        assertThatThrownBy(() -> place(order("alice", 2, KEY)))
                .isInstanceOfSatisfying(RefusedException.class,
                        problem -> assertThat(problem.refusal()).isEqualTo(Refusal.DATABASE_UNAVAILABLE));
        verify(gate, never()).takeLookedUp(any(), anyString());
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis failed", 1.0));
    }

    @Test
    void aDuplicateKeyWithoutAnIdempotencyKeyIsA503() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Taken(8, 3, 5));
        when(taken.giveBack(any())).thenReturn(true);
        database.rejectEvery(code -> new CheckedCommit.NotWritten(new DuplicateKeyException("pk_order_code")));

        assertThatThrownBy(() -> place(order("alice", 2, null)))
                .isInstanceOfSatisfying(RefusedException.class,
                        problem -> assertThat(problem.refusal()).isEqualTo(Refusal.DATABASE_UNAVAILABLE));
        verifyNoInteractions(rows);
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis failed", 1.0));
    }

    @Test
    void anOrderWhoseCommitCouldNotBeConfirmedKeepsItsStockInDoubtAndIsAnsweredOutcomeUnknown() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Taken(8, 3, 5));
        database.rejectEvery(code -> new CheckedCommit.OutcomeUnknown(new DataAccessResourceFailureException("lost")));
        var command = order("alice", 2, KEY);

        assertThatThrownBy(() -> place(command)).isInstanceOfSatisfying(RefusedException.class, problem -> {
            assertThat(problem.refusal()).isEqualTo(Refusal.ORDER_OUTCOME_UNKNOWN);
            assertThat(problem.properties()).containsEntry("orderCode", takenOrderCode(command));
        });
        String orderCode = takenOrderCode(command);
        verify(inDoubt).hold(argThat(order -> order.orderCode().equals(orderCode) && order.command().equals(command)));
        verify(taken, never()).giveBack(any());
        assertThat(compensations()).isEmpty();
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis failed", 1.0));
    }

    @Test
    void anOrderFencedOutByARebuildGetsItsStockBackAndIsRefusedWhileTheItemIsRebuilt() {
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Taken(8, 3, 5));
        when(taken.giveBack(any())).thenReturn(true);
        database.fenceEvery();
        var command = order("alice", 2, null);

        assertThat(place(command)).isEqualTo(new Outcome.StockReloading());

        String orderCode = takenOrderCode(command);
        verify(taken).giveBack(argThat(order -> order.orderCode().equals(orderCode)));
        verify(reloads).heal(ITEM);
        assertThat(database.written()).isEmpty();
        assertThat(compensations()).isEqualTo(Map.of("given_back", 1.0));
        assertThat(ordersCounted(meters)).as("refused by design, not failed")
                .isEqualTo(Map.of("redis stock_reloading", 1.0));
    }

    @Test
    void aReplayOfACommittedOrderIsAnsweredWithTheFirstAnswerAndNotCountedAgain() {
        var first = new FirstAnswer(orderCodeMadeAt(NOW.minusSeconds(1)), 2, 7, 3, "alice");
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Replay(first));
        when(rows.contains(first.orderCode())).thenReturn(true);

        var outcome = place(order("alice", 2, KEY));

        assertThat(outcome).isEqualTo(new Outcome.Replayed(new OrderAnswer(first.orderCode(), ITEM, 2, 7)));
        assertThat(database.attempts()).isZero();
        assertThat(ordersCounted(meters)).isEmpty();
    }

    @Test
    void aReplayForAnotherUserOrQuantityIsAKeyReused() {
        var first = new FirstAnswer(orderCodeMadeAt(NOW.minusSeconds(1)), 2, 7, 3, "alice");
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Replay(first));

        assertThat(place(order("alice", 3, KEY))).isEqualTo(new Outcome.KeyReused());

        verifyNoInteractions(rows);
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis rejected", 1.0));
    }

    @Test
    void aReplayWhoseFirstOrderIsNotCommittedYetIsInProgress() {
        var first = new FirstAnswer(orderCodeMadeAt(NOW.minusSeconds(1)), 2, 7, 3, "alice");
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Replay(first));
        when(rows.contains(first.orderCode())).thenReturn(false);

        assertThat(place(order("alice", 2, KEY))).isEqualTo(new Outcome.ReplayInProgress(first.orderCode()));

        verify(abandonedKeys, never()).mayStillAct(anyString(), anyString());
        verifyNoInteractions(reloads);
        assertThat(ordersCounted(meters)).isEmpty();
    }

    @Test
    void aReplayWhoseFirstOrderCannotBeLookedUpIsA503() {
        var first = new FirstAnswer(orderCodeMadeAt(NOW.minusSeconds(1)), 2, 7, 3, "alice");
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Replay(first));
        when(rows.contains(first.orderCode())).thenThrow(new QueryTimeoutException("slow"));

        assertThatThrownBy(() -> place(order("alice", 2, KEY)))
                .isInstanceOfSatisfying(RefusedException.class,
                        problem -> assertThat(problem.refusal()).isEqualTo(Refusal.DATABASE_UNAVAILABLE));
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis failed", 1.0));
    }

    @Test
    void aReplayOfAnAbandonedAttemptRecountsTheItemForgetsTheKeyAndIsServedAsANewOrder() {
        var first = new FirstAnswer(orderCodeMadeAt(abandonedMoment()), 2, 7, 3, "alice");
        when(gate.take(any(), anyString()))
                .thenReturn(new GateResult.Replay(first))
                .thenReturn(new GateResult.Taken(6, 4, 9));
        when(rows.contains(first.orderCode())).thenReturn(false);
        when(abandonedKeys.mayStillAct(ITEM, first.orderCode())).thenReturn(false);
        when(reloads.recountNow(ITEM)).thenReturn(true);
        var command = order("alice", 2, KEY);
        when(abandonedKeys.forgetAbandoned(command, first)).thenReturn(true);

        var outcome = place(command);

        var calls = inOrder(gate, abandonedKeys, reloads);
        calls.verify(gate).take(eq(command), anyString());
        calls.verify(abandonedKeys).mayStillAct(ITEM, first.orderCode());
        calls.verify(reloads).recountNow(ITEM);
        calls.verify(abandonedKeys).forgetAbandoned(command, first);
        calls.verify(gate).take(eq(command), anyString());
        assertThat(outcome).isInstanceOfSatisfying(Outcome.Accepted.class, accepted -> {
            assertThat(accepted.answer().orderCode()).isNotEqualTo(first.orderCode());
            assertThat(accepted.answer().remaining()).isEqualTo(6);
        });
        assertThat(database.written()).hasSize(1);
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis accepted", 1.0));
    }

    @Test
    void aReplayOfAnAbandonedAttemptThatMayStillActStaysInProgress() {
        var first = new FirstAnswer(orderCodeMadeAt(abandonedMoment()), 2, 7, 3, "alice");
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Replay(first));
        when(rows.contains(first.orderCode())).thenReturn(false);
        when(abandonedKeys.mayStillAct(ITEM, first.orderCode())).thenReturn(true);

        assertThat(place(order("alice", 2, KEY))).isEqualTo(new Outcome.ReplayInProgress(first.orderCode()));

        verifyNoInteractions(reloads);
        verify(gate, times(1)).take(any(), anyString());
        assertThat(ordersCounted(meters)).isEmpty();
    }

    @Test
    void aReplayOfAnAbandonedAttemptWhoseItemCannotBeRecountedStaysInProgress() {
        var first = new FirstAnswer(orderCodeMadeAt(abandonedMoment()), 2, 7, 3, "alice");
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Replay(first));
        when(rows.contains(first.orderCode())).thenReturn(false);
        when(abandonedKeys.mayStillAct(ITEM, first.orderCode())).thenReturn(false);
        when(reloads.recountNow(ITEM)).thenReturn(false);

        assertThat(place(order("alice", 2, KEY))).isEqualTo(new Outcome.ReplayInProgress(first.orderCode()));

        verify(abandonedKeys, never()).forgetAbandoned(any(), any());
        assertThat(ordersCounted(meters)).isEmpty();
    }

    /** Counted nowhere before outcomes were counted in one place (issue 20, item 2); an error thrown is failed. */
    @Test
    void aRedisFailureWhileSettlingAnAbandonedAttemptIsCountedAsFailed() {
        var first = new FirstAnswer(orderCodeMadeAt(abandonedMoment()), 2, 7, 3, "alice");
        when(gate.take(any(), anyString())).thenReturn(new GateResult.Replay(first));
        when(rows.contains(first.orderCode())).thenReturn(false);
        var redisDown = new RedisConnectionFailureException("redis down");
        when(abandonedKeys.mayStillAct(ITEM, first.orderCode())).thenThrow(redisDown);

        assertThatThrownBy(() -> place(order("alice", 2, KEY))).isSameAs(redisDown);
        assertThat(ordersCounted(meters)).isEqualTo(Map.of("redis failed", 1.0));
    }

    /** Places the order as the controllers do: through the one wrapper that counts it. */
    private Outcome place(OrderCommand command) {
        return new CountedPlacement(metrics).place(command.gate(), command, placeOrder::place);
    }

    private static OrderCommand order(String userId, int quantity, String idempotencyKey) {
        return new OrderCommand(ITEM, userId, quantity, idempotencyKey);
    }

    /** The order code the placement made for {@code command} and handed to the gate. */
    private String takenOrderCode(OrderCommand command) {
        var orderCode = ArgumentCaptor.forClass(String.class);
        verify(gate).take(eq(command), orderCode.capture());
        return orderCode.getValue();
    }

    /** A moment just past the time in which a first attempt made then could still write or give back. */
    private static Instant abandonedMoment() {
        return NOW.minus(TestSettings.ABANDONED_AFTER).minusMillis(1);
    }

    /** An order code as the placement makes it (a UUIDv7), made at {@code at}. */
    private static String orderCodeMadeAt(Instant at) {
        return new UUID((at.toEpochMilli() << 16) | 0x7000L, 0x8000_0000_0000_0001L).toString();
    }


    /** The {@code flashstock.order.idempotency.lookups} counters that moved, by whether the key was found. */
    private Map<String, Double> lookups() {
        var moved = new TreeMap<String, Double>();
        for (Counter counter : meters.find("flashstock.order.idempotency.lookups").counters()) {
            if (counter.count() != 0) {
                moved.put(counter.getId().getTag("found"), counter.count());
            }
        }
        return moved;
    }

    /** The {@code flashstock.order.compensations} counters that moved, by result. */
    private Map<String, Double> compensations() {
        var moved = new TreeMap<String, Double>();
        for (Counter counter : meters.find("flashstock.order.compensations").counters()) {
            if (counter.count() != 0) {
                moved.put(counter.getId().getTag("result"), counter.count());
            }
        }
        return moved;
    }

    private void openTheBreaker() {
        try {
            breaker.write(() -> {
                throw new DataAccessResourceFailureException("down");
            });
        } catch (DataAccessResourceFailureException expected) {
            // the one write of the window failed: the breaker is open
        }
        assertThat(breaker.admits()).isFalse();
    }
}
