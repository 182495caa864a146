package io.flashstock.order.placement.indoubt;

import io.flashstock.order.placement.commit.OrderRows;
import io.flashstock.order.placement.core.GatePass;
import io.flashstock.order.placement.core.RecordedPasses;
import io.flashstock.order.placement.core.TestSettings;
import io.flashstock.order.placement.gate.InDoubtEntry;
import io.flashstock.order.placement.gate.TakenStock;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.StockItems;
import io.flashstock.order.stock.StockReload;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessResourceFailureException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

/**
 * The settlement of orders in doubt whose order-api is gone, with Redis (records, taken stock, lives), the order
 * rows and the recount mocked; each round is run by calling {@link AbandonedInDoubtOrders#settle()} as its thread
 * would. Redis's clock reads {@link #NOW}; entries are held by {@code gone} (no mark of life), {@code alive} or this
 * order-api. How they were settled is read from {@code flashstock.order.in-doubt.settled}.
 */
class AbandonedInDoubtOrdersTest {

    private static final long NOW = 1_000_000;
    private static final Duration ABANDONED_AFTER = TestSettings.IN_DOUBT_ABANDONED_AFTER;
    private static final long OLD_ENOUGH = NOW - ABANDONED_AFTER.toMillis();

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final InDoubtRecords records = mock(InDoubtRecords.class);
    private final TakenStock taken = mock(TakenStock.class);
    private final OrderRows rows = mock(OrderRows.class);
    private final OrderApiLiveness liveness = mock(OrderApiLiveness.class);
    private final StockReload reloads = mock(StockReload.class);
    private final RecordedPasses tickets = mock(RecordedPasses.class);
    private final StockItems items = mock(StockItems.class);
    private final AbandonedInDoubtOrders abandoned = new AbandonedInDoubtOrders(records, items, liveness, reloads,
            new AbandonedOrderSettlement(taken, rows,
                    new StaticListableBeanFactory(Map.of("tickets", tickets)).getBeanProvider(RecordedPasses.class),
                    meters),
            TestSettings.defaults());

    @BeforeEach
    void redis() {
        when(records.items()).thenReturn(Set.of("item"));
        when(records.lock(eq("item"), any())).thenReturn(Optional.of("lock"));
        when(records.nowMillis()).thenReturn(NOW);
        when(liveness.self()).thenReturn("this-order-api");
        when(liveness.isLive("alive")).thenReturn(true);
        when(tickets.gate()).thenReturn(Gate.QUEUE);
    }

    @Test
    void anOrderOfAnOrderApiThatIsGoneFoundCommittedStandsAndItsRecordIsReleased() {
        var entry = entry("a", "gone", OLD_ENOUGH);
        holding(entry);
        when(rows.committed("a")).thenReturn(true);
        when(taken.releaseRecorded(entry)).thenReturn(true);

        abandoned.settle();

        verify(taken).releaseRecorded(entry);
        verify(taken, never()).giveBackRecorded(any(), any());
        verify(records).unlock("item", "lock");
        assertThat(settled()).isEqualTo(Map.of("committed", 1.0));
    }

    @Test
    void anOrderOfAnOrderApiThatIsGoneFoundAbsentGetsItsStockBack() {
        var entry = entry("a", "gone", OLD_ENOUGH);
        holding(entry);
        when(taken.giveBackRecorded(entry, null)).thenReturn(true);

        abandoned.settle();

        verify(taken).giveBackRecorded(entry, null);
        verify(taken, never()).releaseRecorded(any());
        assertThat(settled()).isEqualTo(Map.of("given_back", 1.0));
    }

    @Test
    void anOrderFoundAbsentWhoseItemWasRecountedSinceGetsNothingBack() {
        holding(entry("a", "gone", OLD_ENOUGH));

        abandoned.settle();

        assertThat(settled()).isEqualTo(Map.of("recounted", 1.0));
    }

    @Test
    void aWaitingRoomOrderGetsItsStockBackWithItsTicketRestored() {
        var entry = new InDoubtEntry("item", "a", 2, 3, 5, OLD_ENOUGH, "gone", Gate.QUEUE, "ticket-code", null, "user");
        GatePass admission = mock(GatePass.class);
        holding(entry);
        when(tickets.restore("ticket-code")).thenReturn(Optional.of(admission));
        when(taken.giveBackRecorded(entry, admission)).thenReturn(true);

        abandoned.settle();

        verify(taken).giveBackRecorded(entry, admission);
        assertThat(settled()).isEqualTo(Map.of("given_back", 1.0));
    }

    @Test
    void aWaitingRoomOrderWhoseTicketCannotBeRestoredKeepsItsStock() {
        holding(new InDoubtEntry("item", "a", 2, 3, 5, OLD_ENOUGH, "gone", Gate.QUEUE, "garbled", null, "user"));
        when(tickets.restore("garbled")).thenReturn(Optional.empty());

        abandoned.settle();

        verify(taken, never()).giveBackRecorded(any(), any());
        assertThat(settled()).isEmpty();
    }

    @Test
    void anOrderHeldByALiveOrderApiIsLeftToIt() {
        holding(entry("a", "alive", OLD_ENOUGH));

        abandoned.settle();

        verifyNoInteractions(rows);
        assertThat(settled()).isEmpty();
    }

    @Test
    void thisOrderApisOwnOrdersAreLeftToItsInDoubtOrders() {
        holding(entry("a", "this-order-api", OLD_ENOUGH));

        abandoned.settle();

        verifyNoInteractions(rows);
        verify(liveness, never()).isLive(anyString());
    }

    @Test
    void anOrderYoungerThanTheBoundIsLeftEvenIfItsOrderApiLeftNoMark() {
        // an order-api that just started may hold one before its first mark reaches Redis
        holding(entry("a", "gone", OLD_ENOUGH + 1));

        abandoned.settle();

        verifyNoInteractions(rows);
    }

    @Test
    void anItemAnotherOrderApiIsSettlingIsLeftToIt() {
        when(records.lock(eq("item"), any())).thenReturn(Optional.empty());

        abandoned.settle();

        verify(records, never()).entries(any());
        verify(records, never()).unlock(any(), any());
        verifyNoInteractions(rows);
    }

    @Test
    void anItemWithNoOrdersInDoubtLeftIsUnlisted() {
        holding();

        abandoned.settle();

        verify(records).unlist("item");
        verify(records).unlock("item", "lock");
    }

    @Test
    void anOrderWhoseLookupFailsWaitsForTheNextRoundWithoutHoldingUpTheOthers() {
        var stuck = entry("stuck", "gone", OLD_ENOUGH);
        var next = entry("next", "gone", OLD_ENOUGH);
        holding(stuck, next);
        when(rows.committed("stuck")).thenThrow(new CannotAcquireLockException("lock wait timeout"));
        when(rows.committed("next")).thenReturn(true);
        when(taken.releaseRecorded(next)).thenReturn(true);

        abandoned.settle();

        verify(taken, never()).releaseRecorded(stuck);
        verify(taken, never()).giveBackRecorded(eq(stuck), any());
        assertThat(settled()).isEqualTo(Map.of("committed", 1.0));
        verify(records).unlock("item", "lock");
    }

    @Test
    void anUnreachableDatabaseEndsTheRoundAndReleasesTheItemsLock() {
        when(records.items()).thenReturn(new LinkedHashSet<>(List.of("item", "other")));
        holding(entry("a", "gone", OLD_ENOUGH), entry("b", "gone", OLD_ENOUGH));
        when(rows.committed(anyString())).thenThrow(new DataAccessResourceFailureException("down"));

        abandoned.settle();

        verify(rows).committed(anyString());
        verify(records).unlock("item", "lock");
        verify(records, never()).lock(eq("other"), any());
        assertThat(settled()).isEmpty();
    }

    @Test
    void anOrderAnotherOrderApiReleasedMeanwhileIsNotCountedTwice() {
        var entry = entry("a", "gone", OLD_ENOUGH);
        holding(entry);
        when(rows.committed("a")).thenReturn(true);
        when(taken.releaseRecorded(entry)).thenReturn(false);

        abandoned.settle();

        assertThat(settled()).isEmpty();
    }

    @Test
    void ordersRecordedByAnotherVersionAreSettledByRecountingTheItem() {
        when(records.entries("item")).thenReturn(new InDoubtRecords.Entries(List.of(), List.of("legacy")));
        when(reloads.recountNow("item")).thenReturn(true);

        abandoned.settle();

        verify(reloads).recountNow("item");
        verifyNoInteractions(rows);
        verify(records).unlock("item", "lock");
    }

    private static InDoubtEntry entry(String orderCode, String owner, long heldAtMillis) {
        return new InDoubtEntry("item", orderCode, 2, 3, 5, heldAtMillis, owner, Gate.REDIS, "", "key", "user");
    }

    private void holding(InDoubtEntry... entries) {
        when(records.entries("item")).thenReturn(new InDoubtRecords.Entries(new ArrayList<>(Arrays.asList(entries)),
                List.of()));
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
