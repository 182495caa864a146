package io.flashstock.order.placement.indoubt;

import io.flashstock.order.placement.commit.OrderRows;
import io.flashstock.order.placement.core.GatePass;
import io.flashstock.order.placement.core.RecordedPasses;
import io.flashstock.order.placement.gate.InDoubtEntry;
import io.flashstock.order.placement.gate.TakenStock;
import io.flashstock.order.placement.guard.DatabaseBreaker;
import io.flashstock.order.stock.Gate;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

import java.util.Optional;

/**
 * Settles one order in doubt of an order-api that is gone, once {@link AbandonedInDoubtOrders} found it abandoned,
 * as its own order-api would have: found committed, it stands; absent, its stock is given back under the same fence
 * (not to a counter loaded since, and once: the record is the guard), its Idempotency-Key forgotten, so that a retry
 * is served, and its pass restored.
 */
@Component
class AbandonedOrderSettlement {

    // the logger of the round it was split from, so that the log lines read as before
    private static final Logger log = LoggerFactory.getLogger(AbandonedInDoubtOrders.class);

    private final TakenStock taken;
    private final OrderRows rows;
    private final ObjectProvider<RecordedPasses> passes;
    private final Counter committed;
    private final Counter givenBack;
    private final Counter recounted;

    AbandonedOrderSettlement(TakenStock taken, OrderRows rows, ObjectProvider<RecordedPasses> passes,
                             MeterRegistry meters) {
        this.taken = taken;
        this.rows = rows;
        this.passes = passes;
        // the counters InDoubtOrders counts its own settlements with
        committed = InDoubtOrders.settled(meters, "committed");
        givenBack = InDoubtOrders.settled(meters, "given_back");
        recounted = InDoubtOrders.settled(meters, "recounted");
    }

    /** A lookup that fails leaves the order to the next round; a database that cannot be reached ends the round. */
    void settle(InDoubtEntry entry) {
        String order = entry.orderCode();
        try {
            if (rows.committed(order)) {
                if (taken.releaseRecorded(entry)) {
                    committed.increment();
                    log.info("order {} of item {}, in doubt at order-api {} which is gone, was committed after all: it "
                            + "stands", order, entry.itemCode(), entry.owner());
                }
                return;
            }
        } catch (DataAccessException notYet) {
            if (DatabaseBreaker.isUnreachable(notYet)) {
                throw notYet;
            }
            log.debug("order {} in doubt not settled yet: {}", order, notYet.toString());
            return;
        }
        Optional<GatePass> pass = restoredPass(entry);
        if (entry.gate() != Gate.REDIS && pass.isEmpty()) {
            log.error("order {} of item {} in doubt came through the {} gate, whose pass '{}' cannot be restored here; "
                    + "its {} units stay taken: reconcile the item", order, entry.itemCode(), entry.gate().code(),
                    entry.pass(), entry.quantity());
            return;
        }
        if (taken.giveBackRecorded(entry, pass.orElse(null))) {
            givenBack.increment();
            log.info("order {} of item {}, in doubt at order-api {} which is gone, was not committed: its {} units were "
                    + "given back", order, entry.itemCode(), entry.owner(), entry.quantity());
        } else {
            recounted.increment();
            log.info("order {} of item {}, in doubt at order-api {} which is gone, was not committed; the item was "
                    + "reloaded or reset since (or Redis lost its counter), so nothing was given back", order,
                    entry.itemCode(), entry.owner());
        }
    }

    private Optional<GatePass> restoredPass(InDoubtEntry entry) {
        if (entry.gate() == Gate.REDIS) {
            return Optional.empty();
        }
        return passes.stream().filter(p -> p.gate() == entry.gate()).findFirst()
                .flatMap(p -> p.restore(entry.pass()));
    }
}
