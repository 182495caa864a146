package io.flashstock.order.placement.gate;

import io.flashstock.order.placement.core.GatePass;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.placement.core.PlacementSettings;
import io.flashstock.order.stock.RedisScripts;
import io.flashstock.order.stock.StockKeys;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The stock an order took at the {@link RedisStockGate}, after the take: a second script gives the quantity back when
 * the order could not be written, at once or, for an order whose commit could not be confirmed, once
 * {@code InDoubtOrders} (or, if its order-api died, {@code AbandonedInDoubtOrders}) found it absent; meanwhile the
 * order is held in doubt in Redis ({@link InDoubtEntry}), and released if it was committed after all.
 */
@Component
public class TakenStock {

    private static final RedisScript<Long> GIVE_BACK =
            RedisScripts.load("give-back.lua", Long.class);
    private static final RedisScript<Long> HOLD_IN_DOUBT =
            RedisScripts.load("hold-in-doubt.lua", Long.class);

    private final StringRedisTemplate redis;
    private final long takeDeadlineNanos;

    TakenStock(StringRedisTemplate redis, PlacementSettings settings) {
        this.redis = redis;
        this.takeDeadlineNanos = settings.redis().takeDeadline().toNanos();
    }

    /**
     * Returns the quantity of an order that was not written, and forgets its Idempotency-Key. Nothing is
     * returned to a generation that a reset has replaced since, nor to a counter loaded again since (a reload
     * counted it from the orders written), and nothing twice: the take's record is the guard.
     *
     * @return whether the stock was given back
     */
    public boolean giveBack(PlacedOrder order) {
        return giveBack(order, false);
    }

    /**
     * Records an order whose commit could not be confirmed ({@link InDoubtEntry}), held by {@code owner}, until it
     * is settled: a reload or reset of the item removes the record, since it recounts the stock from the orders
     * written.
     */
    public void holdInDoubt(PlacedOrder order, String owner) {
        untilTakeDeadline(() -> redis.execute(HOLD_IN_DOUBT, List.of(StockKeys.inDoubt(order.command().itemCode())),
                order.orderCode(), InDoubtEntry.beforeTime(order), InDoubtEntry.afterTime(order, owner)));
    }

    /**
     * Settles an order in doubt that was committed after all: it keeps its stock.
     *
     * @return whether this call removed its record (false: it was settled already, or recounted)
     */
    public boolean releaseInDoubt(PlacedOrder order) {
        return releaseInDoubt(order.command().itemCode(), order.orderCode());
    }

    /** {@link #releaseInDoubt(PlacedOrder)} for an order another order-api held, from its record. */
    public boolean releaseRecorded(InDoubtEntry entry) {
        return releaseInDoubt(entry.itemCode(), entry.orderCode());
    }

    private boolean releaseInDoubt(String itemCode, String orderCode) {
        Long removed = redis.opsForHash().delete(StockKeys.inDoubt(itemCode), orderCode);
        return removed != null && removed > 0;
    }

    /**
     * Settles an order in doubt that was not written: gives its quantity back like {@link #giveBack}, unless a
     * reload or reset has recounted the item since, and only once (its in-doubt record is the guard, since the
     * take's record may have expired by then).
     *
     * @return whether the stock was given back
     */
    public boolean giveBackInDoubt(PlacedOrder order) {
        return giveBack(order, true);
    }

    /**
     * {@link #giveBackInDoubt(PlacedOrder)} for an order another order-api held: from its record, with its pass
     * restored ({@code null} for the Redis gate's own).
     */
    public boolean giveBackRecorded(InDoubtEntry entry, GatePass restoredPass) {
        return giveBack(entry.command(restoredPass), entry.orderCode(), entry.generation(), entry.loadEpoch(), true);
    }

    private boolean giveBack(PlacedOrder order, boolean inDoubt) {
        return giveBack(order.command(), order.orderCode(), order.generation(), order.loadEpoch(), inDoubt);
    }

    private boolean giveBack(OrderCommand command, String orderCode, long generation, long loadEpoch,
                             boolean inDoubt) {
        var keys = new ArrayList<String>(5);
        keys.add(StockKeys.counter(command.itemCode()));
        keys.add(StockKeys.generation(command.itemCode()));
        keys.add(StockKeys.load(command.itemCode()));
        keys.add(inDoubt ? StockKeys.inDoubt(command.itemCode()) : StockKeys.taken(command.itemCode(), orderCode));
        if (command.idempotencyKey() != null) {
            keys.add(StockKeys.idempotency(command.itemCode(), command.idempotencyKey()));
        }
        if (command.pass() != null) {
            keys.addAll(command.pass().keys());
        }
        Long given = untilTakeDeadline(() -> redis.execute(command.pass() == null ? GIVE_BACK
                        : command.pass().giveBack(), keys, Integer.toString(command.quantity()),
                Long.toString(generation), command.userId(), orderCode, inDoubt ? "in-doubt" : "taken",
                Long.toString(loadEpoch)));
        return given != null && given == 1L;
    }

    /**
     * A guarded step (a give-back, a hold in doubt), sent again while its reply times out, until the take deadline:
     * a command whose reply timed out may have run or not (a starved client may even drop it unsent), and the step
     * gives or records once however often it runs. After the deadline, the last timeout is thrown.
     */
    private <T> T untilTakeDeadline(Supplier<T> step) {
        long deadline = System.nanoTime() + takeDeadlineNanos;
        while (true) {
            try {
                return step.get();
            } catch (QueryTimeoutException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw e;
                }
            } catch (DataAccessException e) {
                if (!SlotMovingRetry.slotMoving(e) || System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                LockSupport.parkNanos(RedisStockGate.SLOT_MOVING_PAUSE_NANOS);
            }
        }
    }
}
