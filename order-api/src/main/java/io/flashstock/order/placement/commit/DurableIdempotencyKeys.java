package io.flashstock.order.placement.commit;

import io.flashstock.order.placement.core.FirstAnswer;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.Outcome;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

import java.util.Optional;

/**
 * The Idempotency-Keys as the database keeps them: one order per item and key, for as long as the order is kept,
 * where Redis keeps a key's first answer for a day and loses it in a restart. Asked only when Redis cannot answer
 * for a key: the gate said it lost the item's keys lately, or the database refused a second order for the key.
 * Each lookup is counted ({@code flashstock.order.idempotency.lookups}, by {@code found}), so that a lookup on the
 * normal path would show.
 */
@Component
public class DurableIdempotencyKeys {

    private final OrderRows rows;
    private final Counter found;
    private final Counter notFound;

    public DurableIdempotencyKeys(OrderRows rows, MeterRegistry meters) {
        this.rows = rows;
        this.found = lookups(meters, true);
        this.notFound = lookups(meters, false);
    }

    private static Counter lookups(MeterRegistry meters, boolean found) {
        return Counter.builder("flashstock.order.idempotency.lookups")
                .description("Idempotency-Keys looked up in the database because Redis could not answer for them")
                .tag("found", Boolean.toString(found)).register(meters);
    }

    /**
     * The answer to the command's key from its first order: that order's, or a key reused for another user or
     * quantity; empty when the database has no order of the item with this key.
     */
    public Optional<Outcome> firstOrder(OrderCommand command) {
        Optional<FirstAnswer> first;
        try {
            first = rows.firstWithKey(command.itemCode(), command.idempotencyKey());
        } catch (DataAccessException e) {
            throw new RefusedException(Refusal.DATABASE_UNAVAILABLE, "could not look up the first order", e);
        }
        (first.isPresent() ? found : notFound).increment();
        return first.map(answer -> answer.sameOrder(command)
                ? new Outcome.Replayed(answer.answer(command.itemCode())) : new Outcome.KeyReused());
    }
}
