package io.flashstock.order.placement.indoubt;

import io.flashstock.order.placement.commit.OrderRows;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.placement.core.TestSettings;
import io.flashstock.order.placement.gate.TakenStock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.RedisConnectionFailureException;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

/**
 * The orders in doubt, with Redis (the taken stock) and the order rows mocked; each round is run by calling
 * {@link InDoubtOrders#settle()} as the scheduler would. The held orders are read from the
 * {@code flashstock.order.in-doubt} gauge, and how they were settled from {@code flashstock.order.in-doubt.settled}.
 */
class InDoubtOrdersTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final TakenStock taken = mock(TakenStock.class);
    private final InDoubtRecords records = mock(InDoubtRecords.class);
    private final OrderApiLiveness liveness = mock(OrderApiLiveness.class);
    private final OrderRows rows = mock(OrderRows.class);
    private final InDoubtOrders inDoubt = new InDoubtOrders(taken, records, liveness, rows, TestSettings.defaults(),
            meters);

    @BeforeEach
    void named() {
        when(liveness.self()).thenReturn("this-order-api");
    }

    @Test
    void anOrderRedisRecordsIsHeldUntilItIsSettled() {
        var order = order("a");

        inDoubt.hold(order);

        verify(taken).holdInDoubt(order, "this-order-api");
        verify(records).list("item");
        assertThat(held()).isEqualTo(1);
        assertThat(settled()).isEmpty();
    }

    @Test
    void anOrderRedisCouldNotRecordIsNotHeldSinceItsStockCouldNotBeGivenBack() {
        var order = order("a");
        doThrow(new RedisConnectionFailureException("redis down")).when(taken).holdInDoubt(order, "this-order-api");

        inDoubt.hold(order);
        inDoubt.settle();

        assertThat(held()).isZero();
        verifyNoInteractions(rows, records);
        verify(taken, never()).giveBackInDoubt(any());
    }

    @Test
    void anOrderRecordedWhoseItemCouldNotBeListedIsStillHeldAndSettled() {
        var order = order("a");
        doThrow(new RedisConnectionFailureException("redis down")).when(records).list("item");
        when(rows.committed("a")).thenReturn(true);

        inDoubt.hold(order);

        assertThat(held()).isEqualTo(1);
        inDoubt.settle();
        verify(taken).releaseInDoubt(order);
        assertThat(settled()).isEqualTo(Map.of("committed", 1.0));
    }

    @Test
    void anOrderFoundCommittedStandsAndItsRecordIsReleased() {
        var order = order("a");
        inDoubt.hold(order);
        when(rows.committed("a")).thenReturn(true);

        inDoubt.settle();

        verify(taken).releaseInDoubt(order);
        verify(taken, never()).giveBackInDoubt(any());
        assertThat(held()).isZero();
        assertThat(settled()).isEqualTo(Map.of("committed", 1.0));
    }

    @Test
    void anOrderFoundAbsentGetsItsStockBack() {
        var order = order("a");
        inDoubt.hold(order);
        when(rows.committed("a")).thenReturn(false);
        when(taken.giveBackInDoubt(order)).thenReturn(true);

        inDoubt.settle();

        verify(taken).giveBackInDoubt(order);
        verify(taken, never()).releaseInDoubt(any());
        assertThat(held()).isZero();
        assertThat(settled()).isEqualTo(Map.of("given_back", 1.0));
    }

    @Test
    void anOrderFoundAbsentWhoseItemWasRecountedSinceGetsNothingBack() {
        var order = order("a");
        inDoubt.hold(order);
        when(rows.committed("a")).thenReturn(false);
        when(taken.giveBackInDoubt(order)).thenReturn(false);

        inDoubt.settle();

        assertThat(held()).isZero();
        assertThat(settled()).isEqualTo(Map.of("recounted", 1.0));
    }

    @Test
    void anOrderWhoseLookupFailsWaitsForTheNextRoundWithoutHoldingUpTheOthers() {
        var stuck = order("stuck");
        var next = order("next");
        inDoubt.hold(stuck);
        inDoubt.hold(next);
        when(rows.committed("stuck")).thenThrow(new CannotAcquireLockException("lock wait timeout")).thenReturn(true);
        when(rows.committed("next")).thenReturn(true);

        inDoubt.settle();

        verify(rows, times(1)).committed("stuck");
        verify(taken).releaseInDoubt(next);
        assertThat(held()).isEqualTo(1);
        assertThat(settled()).isEqualTo(Map.of("committed", 1.0));

        inDoubt.settle();

        verify(taken).releaseInDoubt(stuck);
        assertThat(held()).isZero();
        assertThat(settled()).isEqualTo(Map.of("committed", 2.0));
    }

    @Test
    void anUnreachableDatabaseEndsTheRoundAndKeepsEveryOrder() {
        inDoubt.hold(order("a"));
        inDoubt.hold(order("b"));
        when(rows.committed(anyString())).thenThrow(new DataAccessResourceFailureException("down"));

        inDoubt.settle();

        verify(rows, times(1)).committed(anyString());
        assertThat(held()).isEqualTo(2);
        assertThat(settled()).isEmpty();
    }

    @Test
    void anUnreachableRedisEndsTheRoundAndKeepsEveryOrder() {
        var a = order("a");
        var b = order("b");
        inDoubt.hold(a);
        inDoubt.hold(b);
        when(rows.committed(anyString())).thenReturn(false);
        when(taken.giveBackInDoubt(any())).thenThrow(new RedisConnectionFailureException("redis down"));

        inDoubt.settle();

        verify(taken, times(1)).giveBackInDoubt(any());
        assertThat(held()).isEqualTo(2);
        assertThat(settled()).isEmpty();
    }

    @Test
    void theOrdersKeptByAnUnreachableDatabaseAreSettledOnceItAnswers() {
        var a = order("a");
        var b = order("b");
        inDoubt.hold(a);
        inDoubt.hold(b);
        when(rows.committed("a")).thenThrow(new DataAccessResourceFailureException("down")).thenReturn(true);
        when(rows.committed("b")).thenReturn(false);
        when(taken.giveBackInDoubt(b)).thenReturn(true);

        inDoubt.settle();
        inDoubt.settle();

        verify(taken).releaseInDoubt(a);
        verify(taken).giveBackInDoubt(b);
        assertThat(held()).isZero();
        assertThat(settled()).isEqualTo(Map.of("committed", 1.0, "given_back", 1.0));
    }

    @Test
    void theLastRoundAtShutdownSettlesWhatItCanAndKeepsTheRest() {
        var a = order("a");
        var b = order("b");
        inDoubt.hold(a);
        inDoubt.hold(b);
        when(rows.committed("a")).thenReturn(true);
        when(rows.committed("b")).thenThrow(new CannotAcquireLockException("lock wait timeout"));

        inDoubt.settleBeforeShutdown();

        verify(taken).releaseInDoubt(a);
        assertThat(held()).as("left to the reconciliation").isEqualTo(1);
        assertThat(settled()).isEqualTo(Map.of("committed", 1.0));
    }

    @Test
    void theLastRoundAtShutdownDoesNotThrowWhenSettlingFails() {
        inDoubt.hold(order("a"));
        when(rows.committed("a")).thenThrow(new IllegalStateException("pool closed"));

        assertThatCode(inDoubt::settleBeforeShutdown).doesNotThrowAnyException();
        assertThat(settled()).isEmpty();
        // not pinned: what becomes of the order. Today a failure other than a DataAccessException drops it from
        // the queue, so it is neither kept nor named at shutdown, which looks like a bug
    }

    private static PlacedOrder order(String code) {
        return new PlacedOrder(code, UUID.randomUUID(), new OrderCommand("item", "user", 2, null), 3, 5, 8,
                Instant.EPOCH);
    }

    private double held() {
        return meters.get("flashstock.order.in-doubt").gauge().value();
    }

    /** The {@code flashstock.order.in-doubt.settled} counters that moved, by result. */
    private Map<String, Double> settled() {
        var moved = new TreeMap<String, Double>();
        for (Counter counter : meters.find("flashstock.order.in-doubt.settled").counters()) {
            if (counter.count() != 0) {
                moved.put(counter.getId().getTag("result"), counter.count());
            }
        }
        return moved;
    }
}
