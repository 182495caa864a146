package io.flashstock.order.placement;

import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.Outcome;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.web.Problems;
import io.flashstock.order.web.RefusalProblems;
import io.flashstock.warmup.WarmupTicket;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;


/**
 * {@code POST /order/stock/limit} (the Redis gate): 200 with the order, or a problem (409 sold out, limit
 * reached or the item's gate is another endpoint's, 404 unknown item, 400/413/415 for a bad request, 503
 * when Redis or the database is unavailable). The expected refusals are returned, not thrown: after a
 * sell-out they are most of the traffic. An order here may carry another gate's credential: a waiting room's
 * ticket (header {@value #QUEUE_TICKET}, which wins) or a purchase token ({@code Authorization: Bearer}); the gate
 * it belongs to checks it ({@link QueueTickets}, {@link TokenRedemption}). The DB-lock baseline answers alike,
 * through {@link #answer}.
 */
@RestController
public class OrderController {

    public static final String PATH = GateEndpoints.REDIS;
    /** The header of an order placed with a waiting room's ticket. */
    public static final String QUEUE_TICKET = "Queue-Ticket";
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    private final CountedPlacement counted;
    private final OrderRequests requests;
    private final PlaceOrder placeOrder;
    private final ObjectProvider<TokenRedemption> tokens;
    private final QueueTickets tickets;

    OrderController(CountedPlacement counted, OrderRequests requests, PlaceOrder placeOrder,
                    ObjectProvider<TokenRedemption> tokens, QueueTickets tickets) {
        this.counted = counted;
        this.requests = requests;
        this.placeOrder = placeOrder;
        this.tokens = tokens;
        this.tickets = tickets;
    }

    /** {@code produces} is checked before the order is placed, so a client that accepts no JSON changes nothing. */
    @PostMapping(path = PATH, consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<?> place(@RequestBody PlaceOrderRequest request,
                            @RequestHeader(name = IDEMPOTENCY_KEY, required = false) String idempotencyKey,
                            @RequestHeader(name = WarmupTicket.HEADER, required = false) String ticket,
                            @RequestHeader(name = HttpHeaders.AUTHORIZATION, required = false) String authorization,
                            @RequestHeader(name = QUEUE_TICKET, required = false) String queueTicket) {
        if (queueTicket != null) {
            // an admitted user's order: the waiting room's ticket is its pass
            var admitted = requests.admitted(request, idempotencyKey, queueTicket, tickets);
            return answer(admitted, counted.place(admitted.gate(), admitted, placeOrder::place));
        }
        var command = requests.command(request, idempotencyKey, ticket);
        var redemption = TokenRedemption.of(authorization, tokens);
        if (redemption.isPresent()) {
            // an order with a purchase token: the token gate holds its units already
            return ResponseEntity.ok(redemption.get().redeem(authorization, command.itemCode(), command.userId(),
                    command.quantity()));
        }
        return answer(command, counted.place(command.gate(), command, placeOrder::place));
    }

    /** The answer to an order: 200 with it, or its refusal as a problem. */
    public static ResponseEntity<?> answer(OrderCommand command, Outcome outcome) {
        if (outcome instanceof Outcome.Accepted accepted) {
            return ResponseEntity.ok(accepted.answer());
        }
        if (outcome instanceof Outcome.Replayed replayed) {
            return ResponseEntity.ok(replayed.answer());
        }
        return Problems.answer(refusal(command, outcome));
    }

    private static ProblemDetail refusal(OrderCommand command, Outcome outcome) {
        String item = command.itemCode();
        ProblemDetail problem;
        if (outcome instanceof Outcome.SoldOut soldOut) {
            problem = RefusalProblems.detail(Refusal.SOLD_OUT, "item " + item + " has " + soldOut.remaining()
                    + " left, " + command.quantity() + " asked");
            problem.setProperty("remaining", soldOut.remaining());
        } else if (outcome instanceof Outcome.LimitReached limit) {
            problem = RefusalProblems.detail(Refusal.PER_USER_LIMIT_REACHED, "user " + command.userId() + " bought "
                    + limit.bought() + " of item " + item + " and may buy " + limit.limit());
            problem.setProperty("perUserLimit", limit.limit());
            problem.setProperty("bought", limit.bought());
        } else if (outcome instanceof Outcome.WrongGate wrongGate) {
            problem = RefusalProblems.detail(Refusal.WRONG_GATE, "item " + item + " is sold through its gate "
                    + wrongGate.gate().code() + ": POST " + GateEndpoints.pathOf(wrongGate.gate()));
            problem.setProperty("gate", wrongGate.gate().code());
        } else if (outcome instanceof Outcome.UnknownItem) {
            problem = RefusalProblems.detail(Refusal.UNKNOWN_ITEM, "no stock is set for item " + item);
        } else if (outcome instanceof Outcome.StockReloading) {
            problem = RefusalProblems.detail(Refusal.STOCK_RELOADING, "the stock of item " + item + " is being "
                    + "rebuilt from the orders; nothing was sold: retry shortly");
        } else if (outcome instanceof Outcome.ReplayInProgress replay) {
            problem = RefusalProblems.detail(Refusal.IDEMPOTENCY_IN_PROGRESS,
                    "the first request with this Idempotency-Key has not completed; retry shortly");
            problem.setProperty("orderCode", replay.orderCode());
        } else if (outcome instanceof Outcome.Refused refused) {
            problem = RefusalProblems.detail(refused.reason(), refused.detail());
        } else if (outcome instanceof Outcome.KeyReused) {
            problem = RefusalProblems.detail(Refusal.IDEMPOTENCY_KEY_REUSED,
                    "this Idempotency-Key was first used for another user or quantity");
        } else {
            throw new IllegalStateException("no answer for " + outcome);
        }
        problem.setProperty("itemCode", item);
        return problem;
    }
}
