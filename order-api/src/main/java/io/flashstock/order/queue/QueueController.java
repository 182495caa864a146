package io.flashstock.order.queue;

import io.flashstock.order.placement.CountedPlacement;
import io.flashstock.order.placement.OrderCommand;
import io.flashstock.order.placement.OrderController;
import io.flashstock.order.placement.PlaceOrder;
import io.flashstock.order.placement.PlaceOrderRequest;
import io.flashstock.order.web.InputRules;
import io.flashstock.order.web.ProblemException;
import io.flashstock.order.web.ProblemType;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The waiting room's endpoints: enter ({@code POST /order/stock/queue/tickets}, 201 with the ticket), poll
 * ({@code GET …/tickets/{ticket}}), and the admitted user's order: {@code POST /order/stock/limit} with the
 * header {@code Queue-Ticket}, the same body, rules and answers as any order (this mapping wins over the plain
 * one when the header is there). The ticket must be the body's item, user and quantity, and admitted.
 */
@RestController
class QueueController {

    private static final String TICKET_PATH = OrderController.QUEUE_PATH + "/{ticket}";

    private final EnterWaitingRoom enter;
    private final PollTicket poll;
    private final CountedPlacement counted;
    private final PlaceOrder placeOrder;
    private final InputRules rules;

    QueueController(EnterWaitingRoom enter, PollTicket poll, CountedPlacement counted, PlaceOrder placeOrder,
                    InputRules rules) {
        this.enter = enter;
        this.poll = poll;
        this.counted = counted;
        this.placeOrder = placeOrder;
        this.rules = rules;
    }

    @PostMapping(path = OrderController.QUEUE_PATH, consumes = MediaType.APPLICATION_JSON_VALUE,
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

    @PostMapping(path = OrderController.PATH, headers = Admission.HEADER, consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<?> order(@RequestBody PlaceOrderRequest request,
                            @RequestHeader(name = "Idempotency-Key", required = false) String idempotencyKey,
                            @RequestHeader(name = Admission.HEADER) String ticketCode) {
        rules.checkOrder(request.itemCode(), request.userId(), request.quantity(), idempotencyKey);
        var ticket = Ticket.parse(ticketCode).orElseThrow(PollTicket::unknown);
        if (!ticket.itemCode().equals(request.itemCode())) {
            throw new ProblemException(ProblemType.TICKET_MISMATCH, "the ticket was issued for another item")
                    .with("itemCode", request.itemCode());
        }
        var command = new OrderCommand(request.itemCode(), request.userId(), request.quantity(), idempotencyKey,
                new Admission(ticket));
        return OrderController.answer(command, counted.place(command.gate(), command, placeOrder::place));
    }
}
