package io.flashstock.order.placement;

import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.OrderMetrics;
import io.flashstock.order.placement.core.Outcome;
import io.flashstock.order.stock.Gate;
import org.springframework.stereotype.Component;

import java.util.function.Function;

/**
 * Places an order through a gate and counts how it ended in {@code flashstock.orders}, once: the outcome under the
 * tag it names ({@link Outcome#counted()}), or {@code failed} for anything thrown (every thrown error is answered
 * 5xx). The one place where orders are counted, whichever the gate; the placements themselves count nothing.
 */
@Component
public class CountedPlacement {

    private final OrderMetrics metrics;

    CountedPlacement(OrderMetrics metrics) {
        this.metrics = metrics;
    }

    /** {@code placement} places {@code command}, which comes through {@code gate}. */
    public Outcome place(Gate gate, OrderCommand command, Function<OrderCommand, Outcome> placement) {
        var outcomes = metrics.of(gate);
        Outcome outcome;
        try {
            outcome = placement.apply(command);
        } catch (RuntimeException e) {
            outcomes.failed();
            throw e;
        }
        outcomes.count(outcome.counted());
        return outcome;
    }
}
