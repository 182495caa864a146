package io.flashstock.order.queue;

import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.MissingCounters;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Service;

import java.time.Duration;

/**
 * A user enters an item's waiting room and gets a ticket with a position. Refused, with nothing stored: a second
 * entry by the same user while their ticket is live, an item sold out already (what is left cannot serve the
 * quantity), a waiting room at its bound ({@link QueueSettings#maxWaiting()}, {@link QueueSettings#waitingPerUnit()}),
 * an item that is no waiting room, an unknown item.
 */
@Service
class EnterWaitingRoom {

    private final WaitingRoom room;
    private final MissingCounters missingCounters;
    private final WaitEstimate estimate;
    private final Duration tick;

    EnterWaitingRoom(WaitingRoom room, MissingCounters missingCounters, WaitEstimate estimate,
                     QueueSettings settings) {
        this.room = room;
        this.missingCounters = missingCounters;
        this.estimate = estimate;
        this.tick = settings.tick();
    }

    TicketAnswer enter(String itemCode, String userId, int quantity) {
        var ticket = Ticket.issue(itemCode);
        var entered = room.enter(ticket, userId, quantity);
        return switch (entered.verdict()) {
            case "WAITING" -> {
                long position = Long.parseLong(entered.detail());
                yield new TicketAnswer(ticket.code(), itemCode, userId, quantity, "WAITING", position,
                        estimate.seconds(position), null, null, estimate.pollAfterMillis(position));
            }
            case "ALREADY_QUEUED" -> throw new RefusedException(Refusal.ALREADY_QUEUED, "user " + userId
                    + " holds a ticket for item " + itemCode + " already (" + entered.detail() + "); poll it")
                    .with("itemCode", itemCode).with("status", entered.detail());
            case "SOLD_OUT" -> throw new RefusedException(Refusal.SOLD_OUT, "item " + itemCode + " has "
                    + entered.detail() + " left, " + quantity + " asked").with("itemCode", itemCode)
                    .with("remaining", Long.parseLong(entered.detail()));
            case "QUEUE_FULL" -> throw new RefusedException(Refusal.QUEUE_FULL, "the waiting room of item "
                    + itemCode + " holds " + entered.detail() + " tickets, its most for now; nothing was stored: "
                    + "retry after the seconds of Retry-After").with("itemCode", itemCode)
                    .with("maxWaiting", Long.parseLong(entered.detail()))
                    .retryAfter(Duration.ofMillis(Math.max(tick.toMillis(), entered.waitMillis())));
            case "WRONG_GATE" -> throw wrongGate(itemCode, Gate.fromColumn(entered.detail()));
            case "UNKNOWN" -> throw unknown(itemCode);
            default -> throw new IllegalStateException("unexpected reply from the waiting room: " + entered);
        };
    }

    private static RefusedException wrongGate(String itemCode, Gate gate) {
        return new RefusedException(Refusal.WRONG_GATE, "item " + itemCode + " is sold through its gate "
                + gate.code() + ", not a waiting room").with("itemCode", itemCode).with("gate", gate.code());
    }

    /** No counter in Redis: no such item, an item of another gate, or a counter being rebuilt. */
    private RefusedException unknown(String itemCode) {
        MissingCounters.Triage triage;
        try {
            triage = missingCounters.triage(itemCode, itemGate -> itemGate == Gate.QUEUE);
        } catch (DataAccessException e) {
            return new RefusedException(Refusal.DATABASE_UNAVAILABLE, "could not look up the item", e);
        }
        if (triage instanceof MissingCounters.UnknownItem) {
            return new RefusedException(Refusal.UNKNOWN_ITEM, "no stock is set for item " + itemCode)
                    .with("itemCode", itemCode);
        }
        if (triage instanceof MissingCounters.OtherGate other) {
            return wrongGate(itemCode, other.gate());
        }
        return MissingCounters.rebuilding(itemCode, "retry shortly").with("itemCode", itemCode);
    }
}
