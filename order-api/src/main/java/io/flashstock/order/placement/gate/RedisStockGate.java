package io.flashstock.order.placement.gate;

import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.PlacementSettings;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.stock.RedisScripts;
import io.flashstock.order.stock.StockKeys;
import io.flashstock.order.stock.StockSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The Redis gate: one atomic Lua script per order checks the item's counter, the per-user limit and the
 * Idempotency-Key and takes the quantity, in a single round trip (EVALSHA). What was taken is given back, or held
 * while in doubt, by {@link TakenStock}; a key whose first attempt was abandoned is forgotten by
 * {@link AbandonedKeys}. Keys: {@link StockKeys}. While Redis cannot vouch for the item's Idempotency-Keys
 * ({@link StockKeys#keysLost}), a key it does not have is answered {@link GateResult.KeyUnvouched} before anything
 * is checked that could refuse it.
 * <p>
 * Each take leaves a short-lived record under the order's code, and a take that finds its order's record
 * answers it instead of taking again: a take is idempotent per order. A take whose reply timed out is
 * therefore simply sent again, until {@code flashstock.order.redis.take-deadline}. Every command shares
 * Lettuce's one connection and Redis runs a connection's commands in order, so a later attempt runs after the
 * earlier ones and answers what they did, or, if they took nothing, what there is now. A take Lettuce re-sends
 * after a reconnect takes nothing twice either.
 */
@Component
public class RedisStockGate {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> TAKE =
            RedisScripts.loadWithLife("take-stock.lua", List.class);
    private static final String SLOT_MOVING = "the item's keys are being moved between Redis nodes (a slot "
            + "migration); nothing was taken: retry shortly";
    /** Between two attempts of a step refused while its slot moves: a few keys move in milliseconds. */
    static final long SLOT_MOVING_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final String OUTCOME_UNKNOWN =
            "the stock gate (Redis) did not answer; whether it took the stock is unknown";

    private final StringRedisTemplate redis;
    private final SlotMovingRetry slotMovingRetry;
    private final String idempotencyTtlMillis;
    private final String perUserTtlMillis;
    private final String takeRecordTtlMillis;
    private final long takeDeadlineNanos;
    private final Timer takes;

    RedisStockGate(StringRedisTemplate redis, StockSettings stock, PlacementSettings settings,
                   SlotMovingRetry slotMovingRetry, MeterRegistry meters) {
        this.redis = redis;
        this.slotMovingRetry = slotMovingRetry;
        this.idempotencyTtlMillis = Long.toString(stock.idempotencyTtl().toMillis());
        this.perUserTtlMillis = Long.toString(stock.perUserTtl().toMillis());
        this.takeRecordTtlMillis = Long.toString(settings.redis().takeRecordTtl().toMillis());
        this.takeDeadlineNanos = settings.redis().takeDeadline().toNanos();
        this.takes = Timer.builder("flashstock.order.redis").description("The stock gate's Lua call").register(meters);
    }

    /**
     * Takes the order's quantity if the item has it. A reply that timed out is asked for again until the take
     * deadline; only after it is the order refused without giving anything back, which can only leave Redis
     * lower than the orders say (reconciliation shows it, a reload repairs it), never oversell. A take refused
     * while its Redis Cluster slot moves took nothing and is sent again within a short budget ({@link SlotMovingRetry});
     * after it the order is refused, unless an earlier attempt timed out, whose outcome only a take that runs can tell
     * (sent again until the deadline).
     */
    public GateResult take(OrderCommand order, String orderCode) {
        return take(order, orderCode, false);
    }

    /**
     * {@link #take(OrderCommand, String)} for an order whose Idempotency-Key the database was asked for, after the
     * gate answered {@link GateResult.KeyUnvouched}, and has no order: the gate takes without asking again.
     */
    public GateResult takeLookedUp(OrderCommand order, String orderCode) {
        return take(order, orderCode, true);
    }

    /** Timed as {@code flashstock.order.redis}, retries included, whether it answers or throws. */
    private GateResult take(OrderCommand order, String orderCode, boolean keyLookedUp) {
        return takes.record(() -> takeUntilDeadline(order, orderCode, keyLookedUp));
    }

    private GateResult takeUntilDeadline(OrderCommand order, String orderCode, boolean keyLookedUp) {
        var keys = new ArrayList<String>(9);
        keys.addAll(StockKeys.itemKeys(order.itemCode()));
        keys.add(StockKeys.taken(order.itemCode(), orderCode));
        keys.add(StockKeys.load(order.itemCode()));
        keys.add(StockKeys.life(order.itemCode()));
        keys.add(StockKeys.gate(order.itemCode()));
        if (order.idempotencyKey() != null) {
            keys.add(StockKeys.idempotency(order.itemCode(), order.idempotencyKey()));
            if (!keyLookedUp) {
                keys.add(StockKeys.keysLost(order.itemCode()));
            }
        }
        if (order.pass() != null) {
            keys.addAll(order.pass().keys());
        }
        long deadline = System.nanoTime() + takeDeadlineNanos;
        QueryTimeoutException timedOut = null;
        while (true) {
            try {
                return slotMovingRetry.send(() -> takeOnce(order, orderCode, keys));
            } catch (QueryTimeoutException e) {
                if (timedOut == null) {
                    timedOut = e;
                } else {
                    timedOut.addSuppressed(e);
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw new RefusedException(Refusal.REDIS_UNAVAILABLE, OUTCOME_UNKNOWN, timedOut);
                }
            } catch (DataAccessException e) {
                if (timedOut == null) {
                    // a slot moving longer than its budget is not waited for: orders waiting would hold the server's
                    // threads
                    throw new RefusedException(Refusal.REDIS_UNAVAILABLE, SlotMovingRetry.slotMoving(e)
                            ? SLOT_MOVING : "the stock gate (Redis) did not answer", e);
                }
                if (!SlotMovingRetry.slotMoving(e) || System.nanoTime() - deadline >= 0) {
                    throw new RefusedException(Refusal.REDIS_UNAVAILABLE, OUTCOME_UNKNOWN, e);
                }
                // an earlier attempt may have taken: only a take that runs can say so
                LockSupport.parkNanos(SLOT_MOVING_PAUSE_NANOS);
            }
        }
    }

    private GateResult takeOnce(OrderCommand order, String orderCode, List<String> keys) {
        List<?> reply = redis.execute(order.pass() == null ? TAKE : order.pass().take(), keys,
                Integer.toString(order.quantity()), order.userId(), orderCode, idempotencyTtlMillis, perUserTtlMillis,
                takeRecordTtlMillis, order.gate().code());
        return GateResult.parse(reply);
    }
}
