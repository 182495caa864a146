package io.flashstock.order.queue;

import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import org.springframework.stereotype.Service;

import java.time.Instant;

/** What a ticket says now; an unknown or garbled ticket is 404 {@code UNKNOWN_TICKET}. */
@Service
class PollTicket {

    private final WaitingRoom room;
    private final WaitEstimate estimate;

    PollTicket(WaitingRoom room, WaitEstimate estimate) {
        this.room = room;
        this.estimate = estimate;
    }

    TicketAnswer poll(String code) {
        var ticket = Ticket.parse(code).orElseThrow(PollTicket::unknown);
        var seen = room.poll(ticket);
        if (seen.state().equals("UNKNOWN")) {
            throw unknown();
        }
        boolean waiting = seen.state().equals("WAITING");
        return new TicketAnswer(ticket.code(), ticket.itemCode(), seen.userId(), Integer.valueOf(seen.quantity()),
                seen.state(), waiting ? seen.position() : null, waiting ? estimate.seconds(seen.position()) : null,
                seen.admittedUntilMillis() == null ? null : Instant.ofEpochMilli(seen.admittedUntilMillis()).toString(),
                seen.orderCode().isEmpty() ? null : seen.orderCode(),
                waiting ? estimate.pollAfterMillis(seen.position()) : null);
    }

    static RefusedException unknown() {
        return new RefusedException(Refusal.UNKNOWN_TICKET,
                "no such ticket: it was never issued, is garbled, or outlived its TTL");
    }
}
