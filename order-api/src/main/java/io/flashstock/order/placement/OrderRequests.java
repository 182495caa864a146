package io.flashstock.order.placement;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.web.InputRules;
import io.flashstock.warmup.WarmupProperties;
import io.flashstock.warmup.WarmupTicket;
import org.springframework.stereotype.Component;

/**
 * Turns an order request into its command, the same at every order endpoint: the input rules, then the warm-up's
 * reserved item, which only the warm-up's own orders (with its ticket) may order. Those are marked here, once, to
 * be written with outbox status {@code WARMUP}, so that the order path needs no warm-up settings.
 */
@Component
public class OrderRequests {

    private final InputRules rules;
    private final String warmupItemCode;
    private final WarmupTicket warmupTicket;

    OrderRequests(InputRules rules, WarmupProperties warmup, WarmupTicket warmupTicket) {
        this.rules = rules;
        this.warmupItemCode = warmup.itemCode();
        this.warmupTicket = warmupTicket;
    }

    /** {@code ticket} is the warm-up's, if the request carries one. */
    public OrderCommand command(PlaceOrderRequest request, String idempotencyKey, String ticket) {
        rules.checkOrder(request.itemCode(), request.userId(), request.quantity(), idempotencyKey);
        // only the warm-up's own orders: another's would be answered 200, then deleted by its clean-up
        boolean warmup = request.itemCode().equals(warmupItemCode);
        if (warmup && !warmupTicket.admits(ticket)) {
            throw new RefusedException(Refusal.RESERVED_ITEM, "item " + warmupItemCode
                    + " is reserved for the service's warm-up");
        }
        return new OrderCommand(request.itemCode(), request.userId(), request.quantity(), idempotencyKey, null,
                warmup ? OutboxStatus.WARMUP : OutboxStatus.NEW);
    }

    /** An order with a waiting room's ticket: the input rules, then the ticket, which becomes the order's pass. */
    public OrderCommand admitted(PlaceOrderRequest request, String idempotencyKey, String ticketCode,
                                 QueueTickets tickets) {
        rules.checkOrder(request.itemCode(), request.userId(), request.quantity(), idempotencyKey);
        return new OrderCommand(request.itemCode(), request.userId(), request.quantity(), idempotencyKey,
                tickets.admission(ticketCode, request.itemCode()));
    }
}
