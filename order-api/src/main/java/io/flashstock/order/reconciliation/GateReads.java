package io.flashstock.order.reconciliation;

import io.flashstock.order.queue.WaitingRoomFigures;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.Baseline;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.ItemRead;
import io.flashstock.order.reconciliation.ReconciliationSnapshot.OrderTotals;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.HeldUnits;
import io.flashstock.order.stock.StockKeys;
import org.springframework.data.redis.core.StringRedisTemplate;

import java.util.Optional;

/**
 * The reconciliation's reads of an item's gate in Redis: its counter, the units of its orders in doubt, the units
 * its unused tokens hold ({@code heldUnits}, null without a token gate) and its waiting room.
 */
final class GateReads {

    private final StringRedisTemplate redis;
    private final WaitingRoomFigures waitingRooms;
    private final HeldUnits heldUnits;

    GateReads(StringRedisTemplate redis, WaitingRoomFigures waitingRooms, HeldUnits heldUnits) {
        this.redis = redis;
        this.waitingRooms = waitingRooms;
        this.heldUnits = heldUnits;
    }

    ItemRead read(Baseline b, OrderTotals totals) {
        Long redisRemaining = Optional.ofNullable(redis.opsForValue().get(StockKeys.counter(b.itemCode())))
                .map(Long::valueOf).orElse(null);
        HeldUnits.Outstanding tokens = b.gate() == Gate.TOKEN && heldUnits != null
                ? heldUnits.outstanding(b.itemCode(), b.generation()) : null;
        long inDoubtUnits = b.gate() == Gate.DB_LOCK ? 0 : inDoubtUnits(b.itemCode());
        return new ItemRead(b, totals, redisRemaining, inDoubtUnits, tokens,
                b.gate() == Gate.QUEUE ? waitingRooms.of(b.itemCode(), b.generation()) : null);
    }

    /** Units taken by orders whose commit could not be confirmed yet (StockKeys.inDoubt): each entry starts with them. */
    private long inDoubtUnits(String itemCode) {
        return redis.opsForHash().values(StockKeys.inDoubt(itemCode)).stream()
                .mapToLong(entry -> Long.parseLong(((String) entry).split(":", 2)[0])).sum();
    }
}
