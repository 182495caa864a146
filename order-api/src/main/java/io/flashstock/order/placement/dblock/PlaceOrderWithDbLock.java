package io.flashstock.order.placement.dblock;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import io.flashstock.contract.OutboxStatus;
import io.flashstock.order.placement.PlaceOrder;
import io.flashstock.order.placement.commit.CheckedCommit;
import io.flashstock.order.placement.commit.OrderFailures;
import io.flashstock.order.placement.commit.OrderRows;
import io.flashstock.order.placement.commit.PendingOrder;
import io.flashstock.order.placement.core.FirstAnswer;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.OrderMetrics;
import io.flashstock.order.placement.core.Outcome;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.placement.gate.GateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * Places an order through the DB-lock gate: ONE transaction locks the item's row, checks and decrements it,
 * and writes the order and its outbox row. Stock and order commit or roll back together, so there is
 * nothing to give back; answers and problem codes are those of {@link PlaceOrder}. On its own connection pool
 * ({@link DbLockBaseline}).
 */
class PlaceOrderWithDbLock {

    private static final Logger log = LoggerFactory.getLogger(PlaceOrderWithDbLock.class);

    private final TimeBasedEpochGenerator uuids = Generators.timeBasedEpochGenerator();
    private final DbLockGate gate;
    private final CheckedCommit commits;
    private final OrderRows rows;
    private final OrderMetrics metrics;
    private final Clock clock;

    PlaceOrderWithDbLock(DbLockGate gate, CheckedCommit commits, OrderRows rows, OrderMetrics metrics, Clock clock) {
        this.gate = gate;
        this.commits = commits;
        this.rows = rows;
        this.metrics = metrics;
        this.clock = clock;
    }

    Outcome place(OrderCommand command) {
        String orderCode = uuids.generate().toString();
        try {
            return metrics.timeLocked(() -> commits.inTransaction(orderCode, () -> decide(command, orderCode)));
        } catch (CheckedCommit.NotWritten notWritten) {
            throw OrderFailures.failure(notWritten.getCause(), "the order could not be written; no stock was taken");
        } catch (CheckedCommit.OutcomeUnknown unknown) {
            log.warn("order {} of item {}: commit outcome unknown; reconcile the item", orderCode, command.itemCode());
            throw OrderFailures.outcomeUnknown(orderCode, "the database did not confirm the order; it may still appear: "
                    + "a retry with the same Idempotency-Key tells", unknown);
        }
    }

    /** Runs inside the transaction, holding the item's row lock from the gate's first statement on. */
    private Outcome decide(OrderCommand command, String orderCode) {
        GateResult result = gate.take(command);
        if (result instanceof GateResult.Taken taken) {
            var order = new PlacedOrder(orderCode, uuids.generate(), command, taken.generation(), taken.loadEpoch(),
                    taken.remaining(), clock.instant());
            // never WARMUP: the warm-up's item has no stock_item row, so this gate never takes stock for it
            rows.insert(List.of(new PendingOrder(order, OutboxStatus.NEW)));
            return new Outcome.Accepted(order.answer());
        }
        Optional<Outcome> refusal = result.refusal();
        if (refusal.isPresent()) {
            return refusal.get();
        }
        if (result instanceof GateResult.Replay replay) {
            FirstAnswer first = replay.first();
            return first.sameOrder(command) ? new Outcome.Replayed(first.answer(command.itemCode()))
                    : new Outcome.KeyReused();
        }
        return new Outcome.UnknownItem();
    }
}
