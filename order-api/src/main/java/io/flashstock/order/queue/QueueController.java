package io.flashstock.order.queue;

import io.flashstock.order.placement.PlaceOrderRequest;
import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.web.InputRules;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The waiting room's endpoints: enter ({@code POST /order/stock/queue/tickets}, 201 with the ticket) and poll
 * ({@code GET …/tickets/{ticket}}). The admitted user orders at {@code POST /order/stock/limit} with the header
 * {@code Queue-Ticket} ({@link TicketAdmissions}): the ticket must be the body's item, user and quantity, and admitted.
 */
@RestController
class QueueController {

    private static final String TICKET_PATH = GateEndpoints.QUEUE + "/{ticket}";

    private final EnterWaitingRoom enter;
    private final PollTicket poll;
    private final InputRules rules;

    QueueController(EnterWaitingRoom enter, PollTicket poll, InputRules rules) {
        this.enter = enter;
        this.poll = poll;
        this.rules = rules;
    }

    @PostMapping(path = GateEndpoints.QUEUE, consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<TicketAnswer> enter(@RequestBody PlaceOrderRequest request) {
        rules.checkOrder(request.itemCode(), request.userId(), request.quantity(), null);
        return ResponseEntity.status(HttpStatus.CREATED)
                .body(enter.enter(request.itemCode(), request.userId(), request.quantity()));
    }

    @GetMapping(path = TICKET_PATH, produces = MediaType.APPLICATION_JSON_VALUE)
    TicketAnswer poll(@PathVariable String ticket) {
        return poll.poll(ticket);
    }

}
