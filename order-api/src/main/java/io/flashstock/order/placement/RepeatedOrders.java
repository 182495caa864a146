package io.flashstock.order.placement;

import io.flashstock.order.placement.commit.CheckedCommit;
import io.flashstock.order.placement.commit.DurableIdempotencyKeys;
import io.flashstock.order.placement.commit.OrderFailures;
import io.flashstock.order.placement.commit.OrderRows;
import io.flashstock.order.placement.core.FirstAnswer;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.Outcome;
import io.flashstock.order.placement.core.PlacementSettings;
import io.flashstock.order.placement.gate.AbandonedKeys;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.stock.StockReload;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Answers an order whose Idempotency-Key (or pass) was seen before, so that {@link PlaceOrder} only sells: with the
 * first answer once its order is committed, "in progress" while it may still be, the database's first order when
 * Redis lost the key, and, for a key whose first attempt was abandoned, a settlement after which the retry is served
 * as a new order.
 */
@Component
class RepeatedOrders {

    private static final Logger log = LoggerFactory.getLogger(RepeatedOrders.class);

    private final AbandonedKeys abandonedKeys;
    private final OrderRows rows;
    private final DurableIdempotencyKeys durableKeys;
    private final StockReload reloads;
    private final Clock clock;
    private final Duration abandonedAfter;

    RepeatedOrders(AbandonedKeys abandonedKeys, OrderRows rows, DurableIdempotencyKeys durableKeys,
                   StockReload reloads, Clock clock, PlacementSettings settings) {
        this.abandonedKeys = abandonedKeys;
        this.rows = rows;
        this.durableKeys = durableKeys;
        this.reloads = reloads;
        this.clock = clock;
        this.abandonedAfter = settings.redis().takeDeadline().plus(settings.redis().takeRecordTtl());
    }

    /**
     * The answer to a key Redis cannot vouch for (it lost the item's keys lately), from the database: its first
     * order's; empty when the key has none, and the order is a new one.
     */
    Optional<Outcome> firstOrderOfUnvouchedKey(OrderCommand command) {
        return durableKeys.firstOrder(command);
    }

    /**
     * The answer to a retry whose first answer the gate returned: it stands once its order is committed. Empty when
     * the first attempt was abandoned and is settled now: the retry is then placed as a new order.
     */
    Optional<Outcome> replay(OrderCommand command, FirstAnswer first) {
        if (!first.sameOrder(command)) {
            return Optional.of(new Outcome.KeyReused());
        }
        boolean committed;
        try {
            committed = rows.contains(first.orderCode());
        } catch (DataAccessException e) {
            throw new RefusedException(Refusal.DATABASE_UNAVAILABLE, "could not look up the first order", e);
        }
        if (committed) {
            return Optional.of(new Outcome.Replayed(first.answer(command.itemCode())));
        }
        // only an Idempotency-Key's abandoned first order is settled here; with a pass (a waiting room's ticket) the
        // first answer may be the pass's, which no key forgets, and a recount per retry would only stall the item's
        // commits
        if (abandoned(first) && command.idempotencyKey() != null && command.pass() == null
                && settledAbandoned(command, first)) {
            return Optional.empty();
        }
        return Optional.of(new Outcome.ReplayInProgress(first.orderCode()));
    }

    /**
     * The answer to a retry whose order the database refused as a second one for its key, though Redis no longer
     * had the key: the first order's.
     */
    Outcome replayFromDatabase(OrderCommand command, CheckedCommit.NotWritten duplicate) {
        return durableKeys.firstOrder(command).orElseThrow(() ->
                OrderFailures.failure(duplicate.getCause(), "the order could not be written; its stock was given back"));
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
     * then the key is forgotten. While the attempt may still act (its take's record or an in-doubt record is there),
     * or another rebuild holds the item, nothing is settled and the retry stays "in progress".
     */
    private boolean settledAbandoned(OrderCommand command, FirstAnswer first) {
        if (abandonedKeys.mayStillAct(command.itemCode(), first.orderCode())
                || !reloads.recountNow(command.itemCode()) || !abandonedKeys.forgetAbandoned(command, first)) {
            return false;
        }
        log.info("the first attempt of Idempotency-Key {} on item {} was abandoned: the item was recounted and the "
                + "retry is served", command.idempotencyKey(), command.itemCode());
        return true;
    }
}
