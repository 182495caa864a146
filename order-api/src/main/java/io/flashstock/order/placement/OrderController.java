package io.flashstock.order.placement;

import io.flashstock.order.web.InputRules;
import io.flashstock.order.web.ProblemType;
import io.flashstock.order.web.Problems;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /order/stock/limit}: 200 with the order, or a problem (409 sold out or limit reached, 404
 * unknown item, 400/413/415 for a bad request, 503 when Redis or the database is unavailable). The expected
 * refusals are returned, not thrown: after a sell-out they are most of the traffic.
 */
@RestController
public class OrderController {

    public static final String PATH = "/order/stock/limit";
    static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    private final PlaceOrder placeOrder;
    private final InputRules rules;

    OrderController(PlaceOrder placeOrder, InputRules rules) {
        this.placeOrder = placeOrder;
        this.rules = rules;
    }

    /** {@code produces} is checked before the order is placed, so a client that accepts no JSON changes nothing. */
    @PostMapping(path = PATH, consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<?> place(@RequestBody PlaceOrderRequest request,
                            @RequestHeader(name = IDEMPOTENCY_KEY, required = false) String idempotencyKey) {
        rules.checkOrder(request.itemCode(), request.userId(), request.quantity(), idempotencyKey);
        var command = new OrderCommand(request.itemCode(), request.userId(), request.quantity(), idempotencyKey);
        Outcome outcome = placeOrder.place(command);
        if (outcome instanceof Outcome.Accepted accepted) {
            return ResponseEntity.ok(accepted.answer());
        }
        return Problems.answer(refusal(command, outcome));
    }

    private static ProblemDetail refusal(OrderCommand command, Outcome outcome) {
        String item = command.itemCode();
        ProblemDetail problem;
        if (outcome instanceof Outcome.SoldOut soldOut) {
            problem = Problems.detail(ProblemType.SOLD_OUT, "item " + item + " has " + soldOut.remaining()
                    + " left, " + command.quantity() + " asked");
            problem.setProperty("remaining", soldOut.remaining());
        } else if (outcome instanceof Outcome.LimitReached limit) {
            problem = Problems.detail(ProblemType.PER_USER_LIMIT_REACHED, "user " + command.userId() + " bought "
                    + limit.bought() + " of item " + item + " and may buy " + limit.limit());
            problem.setProperty("perUserLimit", limit.limit());
            problem.setProperty("bought", limit.bought());
        } else if (outcome instanceof Outcome.UnknownItem) {
            problem = Problems.detail(ProblemType.UNKNOWN_ITEM, "no stock is set for item " + item);
        } else if (outcome instanceof Outcome.StockNotLoaded) {
            problem = Problems.detail(ProblemType.STOCK_NOT_LOADED, "item " + item + " has a baseline but no "
                    + "Redis counter; an operator must reload it: POST /admin/items/" + item + "/stock/reload");
        } else if (outcome instanceof Outcome.ReplayInProgress replay) {
            problem = Problems.detail(ProblemType.IDEMPOTENCY_IN_PROGRESS,
                    "the first request with this Idempotency-Key has not completed; retry shortly");
            problem.setProperty("orderCode", replay.orderCode());
        } else if (outcome instanceof Outcome.KeyReused) {
            problem = Problems.detail(ProblemType.IDEMPOTENCY_KEY_REUSED,
                    "this Idempotency-Key was first used for another user or quantity");
        } else {
            throw new IllegalStateException("no answer for " + outcome);
        }
        problem.setProperty("itemCode", item);
        return problem;
    }
}
