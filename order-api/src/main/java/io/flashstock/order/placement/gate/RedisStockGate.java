package io.flashstock.order.placement.gate;

import io.flashstock.order.placement.core.FirstAnswer;
import io.flashstock.order.placement.core.GatePass;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.placement.core.PlacementSettings;
import io.flashstock.order.stock.RedisScripts;
import io.flashstock.order.stock.StockKeys;
import io.flashstock.order.stock.StockSettings;
import io.flashstock.order.web.ProblemException;
import io.flashstock.order.web.ProblemType;
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
import java.util.function.Supplier;

/**
 * The Redis gate: one atomic Lua script per order checks the item's counter, the per-user limit and the
 * Idempotency-Key and takes the quantity, in a single round trip (EVALSHA). A second script gives the
 * quantity back when the order could not be written, at once or, for an order whose commit could not be
 * confirmed, once {@code InDoubtOrders} (or, if its order-api died, {@code AbandonedInDoubtOrders}) found it absent.
 * Keys: {@link StockKeys}. While Redis cannot vouch for the item's Idempotency-Keys ({@link StockKeys#keysLost}), a
 * key it does not have is answered {@link GateResult.KeyUnvouched} before anything is checked that could refuse it.
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
    private static final RedisScript<Long> GIVE_BACK =
            RedisScripts.load("give-back.lua", Long.class);
    private static final RedisScript<Long> FORGET_ABANDONED =
            RedisScripts.load("forget-abandoned.lua", Long.class);
    private static final RedisScript<Long> HOLD_IN_DOUBT =
            RedisScripts.load("hold-in-doubt.lua", Long.class);
    private static final String SLOT_MOVING = "the item's keys are being moved between Redis nodes (a slot "
            + "migration); nothing was taken: retry shortly";
    /** Between two attempts of a step refused while its slot moves: a few keys move in milliseconds. */
    private static final long SLOT_MOVING_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
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
                    throw new ProblemException(ProblemType.REDIS_UNAVAILABLE, OUTCOME_UNKNOWN, timedOut);
                }
            } catch (DataAccessException e) {
                if (timedOut == null) {
                    // a slot moving longer than its budget is not waited for: orders waiting would hold the server's
                    // threads
                    throw new ProblemException(ProblemType.REDIS_UNAVAILABLE, SlotMovingRetry.slotMoving(e)
                            ? SLOT_MOVING : "the stock gate (Redis) did not answer", e);
                }
                if (!SlotMovingRetry.slotMoving(e) || System.nanoTime() - deadline >= 0) {
                    throw new ProblemException(ProblemType.REDIS_UNAVAILABLE, OUTCOME_UNKNOWN, e);
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

    /** Whether something of the order's attempt is left that could still write it or give its stock back. */
    public boolean mayStillAct(String itemCode, String orderCode) {
        return Boolean.TRUE.equals(redis.hasKey(StockKeys.taken(itemCode, orderCode)))
                || redis.opsForHash().hasKey(StockKeys.inDoubt(itemCode), orderCode);
    }

    /**
     * Forgets the key of an order that took stock and was never committed, if nothing of its attempt is left
     * that could still write it or give its stock back (its take's record, an in-doubt record).
     *
     * @return whether the key was forgotten; false while the attempt may still act, or when the key changed
     */
    public boolean forgetAbandoned(OrderCommand command, FirstAnswer first) {
        String item = command.itemCode();
        Long forgotten = redis.execute(FORGET_ABANDONED, List.of(StockKeys.taken(item, first.orderCode()),
                        StockKeys.inDoubt(item), StockKeys.idempotency(item, command.idempotencyKey())),
                first.orderCode(), first.stored());
        return forgotten != null && forgotten == 1L;
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
                LockSupport.parkNanos(SLOT_MOVING_PAUSE_NANOS);
            }
        }
    }
}
