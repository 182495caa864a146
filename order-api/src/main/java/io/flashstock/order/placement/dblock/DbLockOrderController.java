package io.flashstock.order.placement.dblock;

import io.flashstock.order.placement.CountedPlacement;
import io.flashstock.order.placement.OrderController;
import io.flashstock.order.placement.OrderRequests;
import io.flashstock.order.placement.PlaceOrderRequest;
import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.stock.Gate;
import io.flashstock.warmup.WarmupTicket;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

import static io.flashstock.order.placement.OrderController.IDEMPOTENCY_KEY;

/**
 * {@code POST /order/stock/limit/db-lock}: the DB-lock baseline, with the Redis gate's body, rules and answers
 * ({@link OrderController}), so that a comparison of the two measures the gates alone.
 */
@RestController
class DbLockOrderController {

    private final OrderRequests requests;
    private final CountedPlacement counted;
    private final PlaceOrderWithDbLock placeOrder;

    DbLockOrderController(OrderRequests requests, CountedPlacement counted, PlaceOrderWithDbLock placeOrder) {
        this.requests = requests;
        this.counted = counted;
        this.placeOrder = placeOrder;
    }

    @PostMapping(path = GateEndpoints.DB_LOCK, consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<?> place(@RequestBody PlaceOrderRequest request,
                            @RequestHeader(name = IDEMPOTENCY_KEY, required = false) String idempotencyKey,
                            @RequestHeader(name = WarmupTicket.HEADER, required = false) String ticket) {
        var command = requests.command(request, idempotencyKey, ticket);
        return OrderController.answer(command, counted.place(Gate.DB_LOCK, command, placeOrder::place));
    }
}
