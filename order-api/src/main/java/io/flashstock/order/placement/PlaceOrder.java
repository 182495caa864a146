package io.flashstock.order.placement;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.StockItems;
import io.flashstock.order.stock.StockReload;
import io.flashstock.order.web.ProblemException;
import io.flashstock.order.web.ProblemType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.TransactionException;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Places an order: (1) the Redis gate takes the quantity, atomically; (2) one transaction writes the order
 * and its outbox row, if the item's counter was not rebuilt since (1) ({@link LoadFence}); (3) if that
 * transaction did not commit, the quantity is given back before the answer; if whether it committed cannot be
 * found out, the order keeps its quantity until {@link InDoubtOrders} can. An accepted order is therefore
 * durable before it is answered, and Redis is only ever left lower than the orders say (by a crash between
 * (1) and (2)), never higher. A counter the gate cannot sell from (missing, loaded in an earlier life of
 * Redis, or rebuilt while the order was in flight) is rebuilt by {@link StockReload}, and the order refused
 * with nothing sold. An Idempotency-Key whose first answer Redis may have lost since is answered by the database
 * before anything is sold to it ({@link DurableIdempotencyKeys}). A refusal that stands until the item's counter
 * rises (sold out, another gate, no such item) is answered from {@link RefusalMemory}, without Redis.
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
    private final GroupCommit groupCommit;
    private final OrderRows rows;
    private final DurableIdempotencyKeys durableKeys;
    private final InDoubtOrders inDoubt;
    private final DatabaseBreaker breaker;
    private final StockItems items;
    private final StockReload reloads;
    private final OrderMetrics metrics;
    private final RefusalMemory refusals;
    private final Clock clock;
    private final Duration abandonedAfter;

    PlaceOrder(RedisStockGate gate, GroupCommit groupCommit, OrderRows rows, DurableIdempotencyKeys durableKeys,
               InDoubtOrders inDoubt, DatabaseBreaker breaker, StockItems items, StockReload reloads,
               OrderMetrics metrics, RefusalMemory refusals, Clock clock, PlacementSettings settings) {
        this.gate = gate;
        this.groupCommit = groupCommit;
        this.rows = rows;
        this.durableKeys = durableKeys;
        this.inDoubt = inDoubt;
        this.breaker = breaker;
        this.items = items;
        this.reloads = reloads;
        this.metrics = metrics;
        this.refusals = refusals;
        this.clock = clock;
        this.abandonedAfter = settings.redis().takeDeadline().plus(settings.redis().takeRecordTtl());
    }

    public Outcome place(OrderCommand command) {
        if (!breaker.admits()) {
            throw new ProblemException(ProblemType.DATABASE_UNAVAILABLE,
                    "the order database is unreachable; no stock was taken");
        }
        // the crowd after a sell-out is answered here, without a round trip to Redis
        Optional<Outcome> standing = refusals.recall(command);
        if (standing.isPresent()) {
            return standing.get();
        }
        long heard = refusals.heard();
        Outcome outcome = placeThroughGate(command);
        refusals.remember(command, outcome, heard);
        return outcome;
    }

    private Outcome placeThroughGate(OrderCommand command) {
        // made before the gate, so that the gate can store it as the Idempotency-Key's first answer
        String orderCode = uuids.generate().toString();
        GateResult gateResult = metrics.timeRedis(() -> gate.take(command, orderCode));
        if (gateResult instanceof GateResult.KeyUnvouched) {
            // Redis lost the item's keys lately: the database says whether this key has an order, before any sale
            Optional<Outcome> firstOrder = durableKeys.firstOrder(command);
            if (firstOrder.isPresent()) {
                return firstOrder.get();
            }
            gateResult = metrics.timeRedis(() -> gate.takeLookedUp(command, orderCode));
        }
        if (gateResult instanceof GateResult.Taken taken) {
            return write(command, orderCode, taken);
        }
        Optional<Outcome> refusal = gateResult.refusal();
        if (refusal.isPresent()) {
            return refusal.get();
        }
        if (gateResult instanceof GateResult.Replay replay) {
            return replay(command, replay.first());
        }
        if (gateResult instanceof GateResult.Untrusted) {
            return rebuild(command);
        }
        return unknown(command);
    }

    private Outcome write(OrderCommand command, String orderCode, GateResult.Taken taken) {
        var order = new PlacedOrder(orderCode, uuids.generate(), command, taken.generation(), taken.loadEpoch(),
                taken.remaining(), clock.instant());
        try {
            metrics.timeDatabase(() -> groupCommit.write(order, command.outboxStatus()));
        } catch (GroupCommit.Fenced fenced) {
            // the rebuild counted without this order; giving back can only touch the counter it replaces
            giveBack(order);
            return rebuild(command);
        } catch (CheckedCommit.NotWritten notWritten) {
            giveBack(order);
            if (notWritten.getCause() instanceof DuplicateKeyException && command.idempotencyKey() != null) {
                // Redis forgot the key's first answer; the database has the first order
                return replayFromDatabase(command, notWritten);
            }
            throw failure(notWritten.getCause(), "the order could not be written; its stock was given back");
        } catch (CheckedCommit.OutcomeUnknown unknown) {
            inDoubt.hold(order);
            throw outcomeUnknown(order.orderCode(), IN_DOUBT, unknown);
        }
        return new Outcome.Accepted(order.answer());
    }

    private void giveBack(PlacedOrder order) {
        var command = order.command();
        try {
            boolean given = gate.giveBack(order);
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

    /** The answer to an order the database did not write: 503 when the database failed, else a bug. */
    public static RuntimeException failure(Throwable cause, String detail) {
        if (cause instanceof DataAccessException || cause instanceof TransactionException
                || DatabaseBreaker.isUnreachable(cause)) {
            return new ProblemException(ProblemType.DATABASE_UNAVAILABLE, detail, cause);
        }
        return new IllegalStateException("order not written", cause);
    }

    /**
     * The order may or may not stand: not an outage (a client that took it for one might buy again), but an
     * answer to retry with the same {@code Idempotency-Key}, which will tell.
     */
    public static ProblemException outcomeUnknown(String orderCode, String detail,
                                                  CheckedCommit.OutcomeUnknown unknown) {
        return new ProblemException(ProblemType.ORDER_OUTCOME_UNKNOWN, detail, unknown.getCause())
                .with("orderCode", orderCode);
    }

    /** The gate returned the first answer: it stands once its order is committed. */
    private Outcome replay(OrderCommand command, FirstAnswer first) {
        if (!first.sameOrder(command)) {
            return new Outcome.KeyReused();
        }
        boolean committed;
        try {
            committed = rows.contains(first.orderCode());
        } catch (DataAccessException e) {
            throw new ProblemException(ProblemType.DATABASE_UNAVAILABLE, "could not look up the first order", e);
        }
        if (!committed) {
            // only an Idempotency-Key's abandoned first order is settled here; with a pass (a waiting room's ticket)
            // the first answer may be the pass's, which no key forgets, and a recount per retry would only stall the
            // item's commits
            return abandoned(first) && command.idempotencyKey() != null && command.pass() == null
                    ? settleAbandoned(command, first) : new Outcome.ReplayInProgress(first.orderCode());
        }
        return new Outcome.Replayed(first.answer(command.itemCode()));
    }

    /**
     * Whether the first attempt is past the time in which its request could still write its order or give its stock
     * back: its take was retried for at most the take deadline, and its take's record, which any write or give-back
     * outlasts, has expired since. Before it, a retry is answered "in progress", never served twice.
     */
    private boolean abandoned(FirstAnswer first) {
        return first.madeAt().plus(abandonedAfter).isBefore(clock.instant());
    }

    /**
     * Settles a key whose first attempt was abandoned (its order-api died, or its take's reply was lost): the item's
     * counter is recounted from the orders, which restores the units the attempt took and fences out its write;
     * then the key is forgotten and the retry served as a new attempt. While the attempt may still act (its take's
     * record or an in-doubt record is there), or another rebuild holds the item, the retry stays "in progress".
     */
    private Outcome settleAbandoned(OrderCommand command, FirstAnswer first) {
        if (gate.mayStillAct(command.itemCode(), first.orderCode()) || !reloads.recountNow(command.itemCode())
                || !gate.forgetAbandoned(command, first)) {
            return new Outcome.ReplayInProgress(first.orderCode());
        }
        log.info("the first attempt of Idempotency-Key {} on item {} was abandoned: the item was recounted and the "
                + "retry is served", command.idempotencyKey(), command.itemCode());
        return place(command);
    }

    /** The answer to a retry whose key's first order is in the database, though no longer in Redis. */
    private Outcome replayFromDatabase(OrderCommand command, CheckedCommit.NotWritten duplicate) {
        return durableKeys.firstOrder(command).orElseThrow(() ->
                failure(duplicate.getCause(), "the order could not be written; its stock was given back"));
    }

    /** Refuses the order with nothing sold, while the item's counter is rebuilt (if no one is at it already). */
    private Outcome rebuild(OrderCommand command) {
        reloads.heal(command.itemCode());
        return new Outcome.StockReloading();
    }

    /**
     * No counter in Redis: the item does not exist, or Redis lost it (then it is rebuilt), or its gate is the
     * database.
     */
    private Outcome unknown(OrderCommand command) {
        Optional<Gate> gate;
        try {
            gate = items.gate(command.itemCode());
        } catch (DataAccessException e) {
            throw new ProblemException(ProblemType.DATABASE_UNAVAILABLE, "could not look up the item", e);
        }
        if (gate.isEmpty()) {
            return new Outcome.UnknownItem();
        }
        if (gate.get() == Gate.DB_LOCK) {
            return new Outcome.WrongGate(Gate.DB_LOCK);
        }
        return rebuild(command);
    }
}
