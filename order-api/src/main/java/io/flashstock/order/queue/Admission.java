package io.flashstock.order.queue;

import io.flashstock.order.placement.OrderController;
import io.flashstock.order.placement.core.GatePass;
import io.flashstock.order.stock.Gate;
import org.springframework.data.redis.core.script.RedisScript;

import java.util.List;

/** An order's waiting-room ticket, as the order path checks and uses it (queue/take.lua, queue/give-back.lua). */
record Admission(Ticket ticket) implements GatePass {

    static final String HEADER = OrderController.QUEUE_TICKET;

    @Override
    public Gate gate() {
        return Gate.QUEUE;
    }

    @Override
    public List<String> keys() {
        return List.of(QueueKeys.ticket(ticket));
    }

    @Override
    @SuppressWarnings("rawtypes")
    public RedisScript<List> take() {
        return QueueScripts.TAKE;
    }

    @Override
    public RedisScript<Long> giveBack() {
        return QueueScripts.GIVE_BACK;
    }

    /** The ticket as its holder sends it (base64url). */
    @Override
    public String recorded() {
        return ticket.code();
    }
}
