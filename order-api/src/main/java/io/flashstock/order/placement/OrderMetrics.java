package io.flashstock.order.placement;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.stereotype.Component;

import java.util.function.Supplier;

/**
 * The order endpoint's meters, registered once so the hot path only increments:
 * {@code flashstock.orders{outcome}}, the timers of its Redis and database phases, and the compensations.
 * The endpoint as a whole is timed by {@code http.server.requests}.
 */
@Component
public class OrderMetrics {

    private final Counter accepted;
    private final Counter soldOut;
    private final Counter unknownItem;
    private final Counter limitReached;
    private final Counter rejected;
    private final Counter failed;
    private final Timer redis;
    private final Timer database;
    private final Counter givenBack;
    private final Counter notGivenBack;

    OrderMetrics(MeterRegistry registry) {
        accepted = outcome(registry, "accepted");
        soldOut = outcome(registry, "sold_out");
        unknownItem = outcome(registry, "unknown_item");
        limitReached = outcome(registry, "limit_reached");
        rejected = outcome(registry, "rejected");
        failed = outcome(registry, "failed");
        redis = Timer.builder("flashstock.order.redis").description("The stock gate's Lua call").register(registry);
        database = Timer.builder("flashstock.order.db")
                .description("The transaction writing the order and its outbox row").register(registry);
        givenBack = compensation(registry, "given_back");
        notGivenBack = compensation(registry, "failed");
    }

    private static Counter outcome(MeterRegistry registry, String outcome) {
        return Counter.builder("flashstock.orders").description("Orders by outcome").tag("outcome", outcome)
                .register(registry);
    }

    private static Counter compensation(MeterRegistry registry, String result) {
        return Counter.builder("flashstock.order.compensations")
                .description("Stock given back after an order's transaction failed").tag("result", result)
                .register(registry);
    }

    <T> T timeRedis(Supplier<T> call) {
        return redis.record(call);
    }

    void timeDatabase(Runnable call) {
        database.record(call);
    }

    void accepted() {
        accepted.increment();
    }

    void soldOut() {
        soldOut.increment();
    }

    void unknownItem() {
        unknownItem.increment();
    }

    void limitReached() {
        limitReached.increment();
    }

    /** A request refused before it reached the gate (invalid input, wrong media type, too large). */
    public void rejected() {
        rejected.increment();
    }

    void failed() {
        failed.increment();
    }

    void compensated(boolean given) {
        (given ? givenBack : notGivenBack).increment();
    }
}
