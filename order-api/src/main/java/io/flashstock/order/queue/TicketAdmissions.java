package io.flashstock.order.queue;

import io.flashstock.order.placement.QueueTickets;
import io.flashstock.order.placement.core.GatePass;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import org.springframework.stereotype.Component;

/** An order's waiting-room ticket made its pass: it must parse, and be the body's item (the rest the take checks). */
@Component
class TicketAdmissions implements QueueTickets {

    @Override
    public GatePass admission(String ticketCode, String itemCode) {
        var ticket = Ticket.parse(ticketCode).orElseThrow(PollTicket::unknown);
        if (!ticket.itemCode().equals(itemCode)) {
            throw new RefusedException(Refusal.TICKET_MISMATCH, "the ticket was issued for another item")
                    .with("itemCode", itemCode);
        }
        return new Admission(ticket);
    }
}
