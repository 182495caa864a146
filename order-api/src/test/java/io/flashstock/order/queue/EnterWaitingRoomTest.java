package io.flashstock.order.queue;

import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.MissingCounters;
import io.flashstock.order.stock.StockItems;
import io.flashstock.order.stock.StockReload;
import io.flashstock.order.refusal.Refusal;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.springframework.dao.DataAccessResourceFailureException;

import java.time.Duration;
import java.util.Optional;

import static io.flashstock.order.UseCaseAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

/**
 * A user's entry into a waiting room, with Redis and the database faked: the waiting room, the items and the
 * reloads are mocks; the wait estimate is real. Each case pins the answer to one verdict of the enter script.
 */
class EnterWaitingRoomTest {

    private static final String ITEM = "sneaker";
    private static final QueueSettings SETTINGS = new QueueSettings(50, Duration.ofMillis(100),
            Duration.ofSeconds(30), Duration.ofHours(1), Duration.ofSeconds(2), 100_000, 10);

    private final WaitingRoom room = mock(WaitingRoom.class);
    private final StockItems items = mock(StockItems.class);
    private final StockReload reloads = mock(StockReload.class);
    private final EnterWaitingRoom enterWaitingRoom = new EnterWaitingRoom(room, new MissingCounters(items, reloads),
            new WaitEstimate(SETTINGS), SETTINGS);

    @Test
    void aUserWaitingGetsATicketWithItsPositionAndWait() {
        when(room.enter(any(), anyString(), anyInt())).thenReturn(new WaitingRoom.Entered("WAITING", "100", 0));

        TicketAnswer answer = enterWaitingRoom.enter(ITEM, "alice", 2);

        var ticket = ArgumentCaptor.forClass(Ticket.class);
        verify(room).enter(ticket.capture(), eq("alice"), eq(2));
        assertThat(ticket.getValue().itemCode()).isEqualTo(ITEM);
        // 100 waiting at 50 a tick of 100 ms: 2 ticks, 0.2 s; polled after half of it, at least a tick
        assertThat(answer).isEqualTo(new TicketAnswer(ticket.getValue().code(), ITEM, "alice", 2, "WAITING", 100L,
                0.2, null, null, 100L));
        verifyNoInteractions(items, reloads);
    }

    @Test
    void aUserWithALiveTicketIsToldToPollIt() {
        when(room.enter(any(), anyString(), anyInt())).thenReturn(new WaitingRoom.Entered("ALREADY_QUEUED", "ADMITTED", 0));

        var problem = assertProblem(() -> enterWaitingRoom.enter(ITEM, "alice", 2), Refusal.ALREADY_QUEUED);

        assertThat(problem.properties()).containsEntry("status", "ADMITTED").containsEntry("itemCode", ITEM);
    }

    @Test
    void anItemThatCannotServeTheQuantityIsSoldOut() {
        when(room.enter(any(), anyString(), anyInt())).thenReturn(new WaitingRoom.Entered("SOLD_OUT", "1", 0));

        var problem = assertProblem(() -> enterWaitingRoom.enter(ITEM, "alice", 2), Refusal.SOLD_OUT);

        assertThat(problem.properties()).containsEntry("remaining", 1L);
        assertThat(problem.getMessage()).isEqualTo("item sneaker has 1 left, 2 asked");
    }

    @Test
    void aFullWaitingRoomSaysWhenToRetry() {
        when(room.enter(any(), anyString(), anyInt())).thenReturn(new WaitingRoom.Entered("QUEUE_FULL", "500", 2_500),
                new WaitingRoom.Entered("QUEUE_FULL", "500", 0));

        var later = assertProblem(() -> enterWaitingRoom.enter(ITEM, "alice", 2), Refusal.QUEUE_FULL);
        var next = assertProblem(() -> enterWaitingRoom.enter(ITEM, "alice", 2), Refusal.QUEUE_FULL);

        assertThat(later.properties()).containsEntry("maxWaiting", 500L);
        assertThat(later.retryAfter()).isEqualTo(Duration.ofMillis(2_500));
        assertThat(next.retryAfter()).as("at least a tick").isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void anItemOfAnotherGateIsTheWrongGate() {
        when(room.enter(any(), anyString(), anyInt())).thenReturn(new WaitingRoom.Entered("WRONG_GATE", "token", 0));

        var problem = assertProblem(() -> enterWaitingRoom.enter(ITEM, "alice", 2), Refusal.WRONG_GATE);

        assertThat(problem.properties()).containsEntry("gate", "token");
        verifyNoInteractions(items);
    }

    @Test
    void noCounterAndNoItemIsAnUnknownItem() {
        when(room.enter(any(), anyString(), anyInt())).thenReturn(new WaitingRoom.Entered("UNKNOWN", "", 0));
        when(items.gate(ITEM)).thenReturn(Optional.empty());

        assertProblem(() -> enterWaitingRoom.enter(ITEM, "alice", 2), Refusal.UNKNOWN_ITEM);
        verifyNoInteractions(reloads);
    }

    @Test
    void noCounterForADbLockItemIsTheWrongGate() {
        when(room.enter(any(), anyString(), anyInt())).thenReturn(new WaitingRoom.Entered("UNKNOWN", "", 0));
        when(items.gate(ITEM)).thenReturn(Optional.of(Gate.DB_LOCK));

        var problem = assertProblem(() -> enterWaitingRoom.enter(ITEM, "alice", 2), Refusal.WRONG_GATE);

        assertThat(problem.properties()).containsEntry("gate", "db-lock");
        verifyNoInteractions(reloads);
    }

    @Test
    void aQueueItemsCounterRedisLostIsRebuilt() {
        when(room.enter(any(), anyString(), anyInt())).thenReturn(new WaitingRoom.Entered("UNKNOWN", "", 0));
        when(items.gate(ITEM)).thenReturn(Optional.of(Gate.QUEUE));

        var problem = assertProblem(() -> enterWaitingRoom.enter(ITEM, "alice", 2), Refusal.STOCK_RELOADING);

        assertThat(problem.getMessage())
                .isEqualTo("the stock of item " + ITEM + " is being rebuilt from the orders; retry shortly");
        assertThat(problem.properties()).containsEntry("itemCode", ITEM);
        verify(reloads).heal(ITEM);
    }

    @Test
    void theDatabaseDownWhileLookingUpTheItemIsSaid() {
        when(room.enter(any(), anyString(), anyInt())).thenReturn(new WaitingRoom.Entered("UNKNOWN", "", 0));
        when(items.gate(ITEM)).thenThrow(new DataAccessResourceFailureException("down"));

        assertProblem(() -> enterWaitingRoom.enter(ITEM, "alice", 2), Refusal.DATABASE_UNAVAILABLE);
    }

    @Test
    void aVerdictTheScriptNeverSendsIsABug() {
        when(room.enter(any(), anyString(), anyInt())).thenReturn(new WaitingRoom.Entered("ADMITTED", "", 0));

        assertThatThrownBy(() -> enterWaitingRoom.enter(ITEM, "alice", 2)).isInstanceOf(IllegalStateException.class);
    }

}
