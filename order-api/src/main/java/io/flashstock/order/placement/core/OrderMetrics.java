package io.flashstock.order.placement.core;

import io.flashstock.order.stock.Gate;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.stereotype.Component;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The order endpoints' meters, registered once so the hot path only increments:
 * {@code flashstock.orders{gate,outcome}} (one set per gate, so the two endpoints can be compared), the
 * timer of the DB-lock gate's transaction, and the Redis gate's compensations. The Redis gate's Redis and database
 * phases are timed by their adapters ({@code RedisStockGate}, {@code GroupCommit}); the endpoints as a whole by
 * {@code EndpointLatency}.
 */
@Component
public class OrderMetrics {

    private final Map<Gate, Outcomes> outcomes = new EnumMap<>(Gate.class);
    private final Timer locked;
    private final Counter givenBack;
    private final Counter notGivenBack;

    public OrderMetrics(MeterRegistry registry) {
        for (Gate gate : Gate.values()) {
            outcomes.put(gate, new Outcomes(registry, gate));
        }
        locked = Timer.builder("flashstock.order.db.locked")
                .description("The DB-lock gate's transaction: row lock, checks, decrement, order and outbox row")
                .register(registry);
        givenBack = compensation(registry, "given_back");
        notGivenBack = compensation(registry, "failed");
    }

    private static Counter compensation(MeterRegistry registry, String result) {
        return Counter.builder("flashstock.order.compensations")
                .description("Stock given back after an order's transaction failed").tag("result", result)
                .register(registry);
    }

    /** The outcome counters of the endpoint that sells through {@code gate}. */
    public Outcomes of(Gate gate) {
        return outcomes.get(gate);
    }

    public <T> T timeLocked(Supplier<T> call) {
        return locked.record(call);
    }

    public void compensated(boolean given) {
        (given ? givenBack : notGivenBack).increment();
    }

    /** {@code flashstock.orders} of one gate, by outcome. */
    public static final class Outcomes {

        private final Map<Outcome.Counted, Counter> counted = new EnumMap<>(Outcome.Counted.class);
        private final Counter overloaded;

        private Outcomes(MeterRegistry registry, Gate gate) {
            for (Outcome.Counted outcome : Outcome.Counted.values()) {
                if (outcome != Outcome.Counted.NONE) {
                    counted.put(outcome, outcome(registry, gate, outcome.name().toLowerCase(Locale.ROOT)));
                }
            }
            overloaded = outcome(registry, gate, "overloaded");
        }

        private static Counter outcome(MeterRegistry registry, Gate gate, String outcome) {
            return Counter.builder("flashstock.orders").description("Orders by gate and outcome")
                    .tag("gate", gate.code()).tag("outcome", outcome).register(registry);
        }

        /** Counts one order as {@code outcome}; {@link Outcome.Counted#NONE} counts nothing. */
        public void count(Outcome.Counted outcome) {
            Counter counter = counted.get(outcome);
            if (counter != null) {
                counter.increment();
            }
        }

        /** A request refused before it reached the gate (invalid input, wrong media type, too large). */
        public void rejected() {
            count(Outcome.Counted.REJECTED);
        }

        public void failed() {
            count(Outcome.Counted.FAILED);
        }

        /** A request refused unread because too many orders were in flight. */
        public void overloaded() {
            overloaded.increment();
        }
    }
}
