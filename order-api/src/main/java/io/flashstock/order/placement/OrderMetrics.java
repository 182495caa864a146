package io.flashstock.order.placement;

import io.flashstock.order.stock.Gate;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.stereotype.Component;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The order endpoints' meters, registered once so the hot path only increments:
 * {@code flashstock.orders{gate,outcome}} (one set per gate, so the two endpoints can be compared), the
 * timers of the Redis gate's Redis and database phases and of the DB-lock gate's transaction, and the
 * Redis gate's compensations. The endpoints as a whole are timed by {@link EndpointLatency}.
 */
@Component
public class OrderMetrics {

    private final Map<Gate, Outcomes> outcomes = new EnumMap<>(Gate.class);
    private final Timer redis;
    private final Timer database;
    private final Timer locked;
    private final Counter givenBack;
    private final Counter notGivenBack;

    OrderMetrics(MeterRegistry registry) {
        for (Gate gate : Gate.values()) {
            outcomes.put(gate, new Outcomes(registry, gate));
        }
        redis = Timer.builder("flashstock.order.redis").description("The stock gate's Lua call").register(registry);
        database = Timer.builder("flashstock.order.db")
                .description("The transaction writing the order and its outbox row").register(registry);
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

    <T> T timeRedis(Supplier<T> call) {
        return redis.record(call);
    }

    void timeDatabase(Runnable call) {
        database.record(call);
    }

    <T> T timeLocked(Supplier<T> call) {
        return locked.record(call);
    }

    void compensated(boolean given) {
        (given ? givenBack : notGivenBack).increment();
    }

    /** {@code flashstock.orders} of one gate, by outcome. */
    public static final class Outcomes {

        private final Counter accepted;
        private final Counter soldOut;
        private final Counter unknownItem;
        private final Counter limitReached;
        private final Counter wrongGate;
        private final Counter rejected;
        private final Counter failed;
        private final Counter overloaded;

        private Outcomes(MeterRegistry registry, Gate gate) {
            accepted = outcome(registry, gate, "accepted");
            soldOut = outcome(registry, gate, "sold_out");
            unknownItem = outcome(registry, gate, "unknown_item");
            limitReached = outcome(registry, gate, "limit_reached");
            wrongGate = outcome(registry, gate, "wrong_gate");
            rejected = outcome(registry, gate, "rejected");
            failed = outcome(registry, gate, "failed");
            overloaded = outcome(registry, gate, "overloaded");
        }

        private static Counter outcome(MeterRegistry registry, Gate gate, String outcome) {
            return Counter.builder("flashstock.orders").description("Orders by gate and outcome")
                    .tag("gate", gate.code()).tag("outcome", outcome).register(registry);
        }

        public void accepted() {
            accepted.increment();
        }

        public void soldOut() {
            soldOut.increment();
        }

        public void unknownItem() {
            unknownItem.increment();
        }

        public void limitReached() {
            limitReached.increment();
        }

        public void wrongGate() {
            wrongGate.increment();
        }

        /** A request refused before it reached the gate (invalid input, wrong media type, too large). */
        public void rejected() {
            rejected.increment();
        }

        public void failed() {
            failed.increment();
        }

        /** A request refused unread because too many orders were in flight. */
        void overloaded() {
            overloaded.increment();
        }
    }
}
