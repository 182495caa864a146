package io.flashstock.order.queue;

import io.flashstock.order.placement.gate.SlotMovingRetry;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.stock.StockKeys;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

import java.util.List;
import java.util.function.Supplier;

/**
 * The waiting room in Redis (the Lua scripts under resources/redis/queue, keys in {@link QueueKeys}): entering,
 * polling, and one tick of admissions. Every order-api shares it, so any of them may answer any ticket.
 */
@Component
class WaitingRoom {

    /**
     * What the enter script answered: its verdict, then the position (WAITING) or the detail; for QUEUE_FULL the
     * bound, and {@code waitMillis} until a place may free.
     */
    record Entered(String verdict, String detail, long waitMillis) {
    }

    /** A ticket as the poll script sees it: '' stands for a field that does not apply. */
    record Seen(String state, String userId, String quantity, long position, Long admittedUntilMillis,
                String orderCode) {
    }

    /**
     * One tick of an item: {@code ticked} false when another order-api had the tick, or there was nothing to tick;
     * {@code idle} when there was nothing to tick (nobody waits and no admission is unused, or the item's gate is
     * no longer {@code queue}): the item need not be ticked at every tick until its next entry.
     */
    record Tick(boolean ticked, boolean idle, int admitted, int expired, long waiting, long admittedUnits) {
    }

    /** At most this many tickets that can no longer be served are dropped per tick (their polls say so already). */
    private static final String MOST_DROPPED_PER_TICK = "1000";
    /**
     * How long the ticket of an admission that ended unused is kept: its user's next polls (at most
     * {@code max-poll-after} apart) read EXPIRED, and an order with it ADMISSION_EXPIRED; later it is unknown. So the
     * ended tickets of an item are at most a minute of admissions (500 a second at the defaults), not an hour's.
     */
    private static final String ENDED_TICKET_TTL_MILLIS = "60000";

    private final StringRedisTemplate redis;
    private final QueueSettings settings;
    private final ActiveRooms active;
    private final SlotMovingRetry slotMovingRetry;

    WaitingRoom(StringRedisTemplate redis, QueueSettings settings, ActiveRooms active,
                SlotMovingRetry slotMovingRetry) {
        this.redis = redis;
        this.settings = settings;
        this.active = active;
        this.slotMovingRetry = slotMovingRetry;
    }

    Entered enter(Ticket ticket, String userId, int quantity) {
        String item = ticket.itemCode();
        List<?> reply = call(() -> redis.execute(QueueScripts.ENTER, List.of(StockKeys.counter(item),
                        StockKeys.generation(item), StockKeys.gate(item), StockKeys.inDoubt(item), QueueKeys.ticket(ticket)),
                userId, Integer.toString(quantity), ticket.id(), Long.toString(settings.ticketTtl().toMillis()),
                Long.toString(settings.maxWaiting()), Long.toString(settings.waitingPerUnit())));
        var entered = new Entered((String) reply.get(0), reply.size() > 1 ? (String) reply.get(1) : null,
                reply.size() > 2 && "QUEUE_FULL".equals(reply.get(0)) ? Long.parseLong((String) reply.get(2)) : 0);
        if ("WAITING".equals(entered.verdict())) {
            active.entered(item);
        }
        return entered;
    }

    Seen poll(Ticket ticket) {
        String item = ticket.itemCode();
        List<?> reply = call(() -> redis.execute(QueueScripts.POLL, List.of(StockKeys.counter(item),
                StockKeys.generation(item), StockKeys.inDoubt(item), QueueKeys.ticket(ticket))));
        String position = (String) reply.get(3);
        String until = (String) reply.get(4);
        return new Seen((String) reply.get(0), (String) reply.get(1), (String) reply.get(2),
                position.isEmpty() ? 0 : Long.parseLong(position), until.isEmpty() ? null : Long.valueOf(until),
                (String) reply.get(5));
    }

    Tick admit(String item) {
        List<?> reply = call(() -> redis.execute(QueueScripts.ADMIT, List.of(StockKeys.counter(item),
                        StockKeys.generation(item), StockKeys.inDoubt(item), StockKeys.gate(item)),
                Integer.toString(settings.admitPerTick()), Long.toString(settings.tickLockMillis()),
                Long.toString(settings.admissionTtl().toMillis()), Long.toString(settings.ticketTtl().toMillis()),
                MOST_DROPPED_PER_TICK, ENDED_TICKET_TTL_MILLIS));
        String verdict = (String) reply.get(0);
        if (!"DONE".equals(verdict)) {
            return new Tick(false, "IDLE".equals(verdict) || "GONE".equals(verdict), 0, 0, 0, 0);
        }
        return new Tick(true, false, Integer.parseInt((String) reply.get(1)), Integer.parseInt((String) reply.get(2)),
                Long.parseLong((String) reply.get(3)), Long.parseLong((String) reply.get(4)));
    }

    private <T> T call(Supplier<T> script) {
        try {
            return slotMovingRetry.send(script);
        } catch (DataAccessException e) {
            throw new RefusedException(Refusal.REDIS_UNAVAILABLE, "the waiting room (Redis) did not answer", e);
        }
    }
}
