package io.flashstock.order.placement;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import io.flashstock.order.placement.commit.CheckedCommit;
import io.flashstock.order.placement.commit.GroupCommit;
import io.flashstock.order.placement.commit.OrderFailures;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.OrderMetrics;
import io.flashstock.order.placement.core.Outcome;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.placement.gate.GateResult;
import io.flashstock.order.placement.gate.RedisStockGate;
import io.flashstock.order.placement.gate.TakenStock;
import io.flashstock.order.placement.guard.DatabaseBreaker;
import io.flashstock.order.placement.indoubt.InDoubtOrders;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.MissingCounters;
import io.flashstock.order.stock.StockReload;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;

import java.time.Clock;
import java.util.Optional;

/**
 * Places an order: (1) the Redis gate takes the quantity, atomically; (2) one transaction writes the order
 * and its outbox row, if the item's counter was not rebuilt since (1) ({@code LoadFence}); (3) if that
 * transaction did not commit, the quantity is given back before the answer; if whether it committed cannot be
 * found out, the order keeps its quantity until {@link InDoubtOrders} can. An accepted order is therefore
 * durable before it is answered, and Redis is only ever left lower than the orders say (by a crash between
 * (1) and (2)), never higher. A counter the gate cannot sell from (missing, loaded in an earlier life of
 * Redis, or rebuilt while the order was in flight) is rebuilt by {@link StockReload}, and the order refused
 * with nothing sold. A repeated Idempotency-Key is answered by {@link RepeatedOrders}, with its first order. A refusal
 * that stands until the item's counter rises (sold out, another gate, no such item) is answered from
 * {@link RefusalMemory}, without Redis. The gate and the commit time themselves.
 */
@Service
public class PlaceOrder {

    private static final Logger log = LoggerFactory.getLogger(PlaceOrder.class);

    static final String IN_DOUBT = "the database did not confirm the order; it is looked up again once the "
            + "database answers and its stock given back if it is not there; a retry with the same Idempotency-Key "
            + "tells which";

    /** UUIDv7: time-ordered (index-friendly) with 74 random bits, so codes never collide. */
    private final TimeBasedEpochGenerator uuids = Generators.timeBasedEpochGenerator();
    private final RedisStockGate gate;
    private final TakenStock taken;
    private final GroupCommit groupCommit;
    private final RepeatedOrders repeated;
    private final InDoubtOrders inDoubt;
    private final DatabaseBreaker breaker;
    private final MissingCounters missingCounters;
    private final StockReload reloads;
    private final OrderMetrics metrics;
    private final RefusalMemory refusals;
    private final Clock clock;

    PlaceOrder(RedisStockGate gate, TakenStock taken, GroupCommit groupCommit, RepeatedOrders repeated,
               InDoubtOrders inDoubt, DatabaseBreaker breaker, MissingCounters missingCounters, StockReload reloads,
               OrderMetrics metrics, RefusalMemory refusals, Clock clock) {
        this.gate = gate;
        this.taken = taken;
        this.groupCommit = groupCommit;
        this.repeated = repeated;
        this.inDoubt = inDoubt;
        this.breaker = breaker;
        this.missingCounters = missingCounters;
        this.reloads = reloads;
        this.metrics = metrics;
        this.refusals = refusals;
        this.clock = clock;
    }

    public Outcome place(OrderCommand command) {
        if (!breaker.admits()) {
            throw new RefusedException(Refusal.DATABASE_UNAVAILABLE,
                    "the order database is unreachable; no stock was taken");
        }
        // the crowd after a sell-out is answered here, without a round trip to Redis
        Optional<Outcome> standing = refusals.recall(command);
        if (standing.isPresent()) {
            return standing.get();
        }
        long heard = refusals.heard();
        Outcome outcome = takeThenWrite(command);
        refusals.remember(command, outcome, heard);
        return outcome;
    }

    /** Take (the Redis gate), write (the order and its outbox row, group-committed), answer. */
    private Outcome takeThenWrite(OrderCommand command) {
        // made before the gate, so that the gate can store it as the Idempotency-Key's first answer
        String orderCode = uuids.generate().toString();
        GateResult result = gate.take(command, orderCode);
        if (result instanceof GateResult.KeyUnvouched) {
            // Redis lost the item's keys lately: the database says whether this key has an order, before any sale
            Optional<Outcome> firstOrder = repeated.firstOrderOfUnvouchedKey(command);
            if (firstOrder.isPresent()) {
                return firstOrder.get();
            }
            result = gate.takeLookedUp(command, orderCode);
        }
        if (result instanceof GateResult.Taken taken) {
            return write(command, orderCode, taken);
        }
        if (result instanceof GateResult.Replay replay) {
            // empty: the key's first attempt was abandoned and is settled, so this one is placed as a new order
            return repeated.replay(command, replay.first()).orElseGet(() -> place(command));
        }
        if (result instanceof GateResult.Untrusted) {
            return rebuild(command);
        }
        if (result instanceof GateResult.Unknown) {
            return unknown(command);
        }
        // sold out, the limit, another gate, a pass refused: the same at every gate
        GateResult refused = result;
        return refused.refusal().orElseThrow(() -> new IllegalStateException("no answer for " + refused));
    }

    /** Writes the taken order; if it was not written, gives its units back before the answer. */
    private Outcome write(OrderCommand command, String orderCode, GateResult.Taken taken) {
        var order = new PlacedOrder(orderCode, uuids.generate(), command, taken.generation(), taken.loadEpoch(),
                taken.remaining(), clock.instant());
        try {
            groupCommit.write(order, command.outboxStatus());
            return new Outcome.Accepted(order.answer());
        } catch (GroupCommit.Fenced fenced) {
            // the rebuild counted without this order; giving back can only touch the counter it replaces
            giveBack(order);
            return rebuild(command);
        } catch (CheckedCommit.NotWritten notWritten) {
            giveBack(order);
            if (notWritten.getCause() instanceof DuplicateKeyException && command.idempotencyKey() != null) {
                // Redis forgot the key's first answer; the database has the first order
                return repeated.replayFromDatabase(command, notWritten);
            }
            throw OrderFailures.failure(notWritten.getCause(), "the order could not be written; its stock was given back");
        } catch (CheckedCommit.OutcomeUnknown unknown) {
            inDoubt.hold(order);
            throw OrderFailures.outcomeUnknown(order.orderCode(), IN_DOUBT, unknown);
        }
    }

    private void giveBack(PlacedOrder order) {
        var command = order.command();
        try {
            boolean given = taken.giveBack(order);
            metrics.compensated(given);
            if (!given) {
                log.info("order {} not written; its {} units of {} were not given back: the counter was reset or "
                        + "reloaded since generation {}, or they were given back already", order.orderCode(),
                        command.quantity(), command.itemCode(), order.generation());
            }
        } catch (DataAccessException e) {
            metrics.compensated(false);
            log.error("order {} not written and its {} units of {} could not be given back ({}); "
                    + "reload the item's stock", order.orderCode(), command.quantity(), command.itemCode(),
                    e.toString());
        }
    }

    /** Refuses the order with nothing sold, while the item's counter is rebuilt (if no one is at it already). */
    private Outcome rebuild(OrderCommand command) {
        reloads.heal(command.itemCode());
        return new Outcome.StockReloading();
    }

    /** No counter in Redis: no such item, an item of the DB-lock gate, or a counter Redis lost (rebuilt). */
    private Outcome unknown(OrderCommand command) {
        MissingCounters.Triage triage;
        try {
            triage = missingCounters.triage(command.itemCode(), itemGate -> itemGate != Gate.DB_LOCK);
        } catch (DataAccessException e) {
            throw new RefusedException(Refusal.DATABASE_UNAVAILABLE, "could not look up the item", e);
        }
        if (triage instanceof MissingCounters.OtherGate other) {
            return new Outcome.WrongGate(other.gate());
        }
        return triage instanceof MissingCounters.Rebuilding ? new Outcome.StockReloading() : new Outcome.UnknownItem();
    }
}
