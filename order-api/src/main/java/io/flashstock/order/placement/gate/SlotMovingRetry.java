package io.flashstock.order.placement.gate;

import io.flashstock.order.placement.core.PlacementSettings;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Sends a Lua script again while Redis refuses it with {@code TRYAGAIN}, for at most
 * {@code flashstock.order.redis.slot-moving-budget} of pauses. While a Redis Cluster slot moves to another primary, a
 * script of several keys runs only where all of them are, and a take's keys are never all on one node (its own record
 * is new: it exists on neither), so every take of the item is refused until the slot is the target's. A refused script
 * ran nothing: sending it again is safe. After the budget the last refusal is thrown (the callers answer 503).
 * <p>
 * Counted in {@code flashstock.redis.tryagain} by outcome: {@code retried} (each script sent again), {@code ran} (one
 * that ran after that), {@code refused} (the budget spent), so that an operator sees a migration's cost.
 */
@Component
public class SlotMovingRetry {

    private static final IntervalFunction BACKOFF =
            IntervalFunction.ofExponentialBackoff(Duration.ofMillis(10), 1.5, Duration.ofMillis(40));

    private final Retry retry;

    SlotMovingRetry(PlacementSettings settings, MeterRegistry registry) {
        retry = Retry.of("slot-moving", RetryConfig.custom()
                .maxAttempts(attemptsWithin(settings.redis().slotMovingBudget()))
                .intervalFunction(BACKOFF)
                .retryOnException(SlotMovingRetry::slotMoving)
                .build());
        Counter retried = outcome(registry, "retried");
        Counter ran = outcome(registry, "ran");
        Counter refused = outcome(registry, "refused");
        retry.getEventPublisher()
                .onRetry(event -> retried.increment())
                .onSuccess(event -> ran.increment())
                .onError(event -> refused.increment());
    }

    /** Runs {@code script}, sent again while it is refused {@code TRYAGAIN} within the budget. */
    public <T> T send(Supplier<T> script) {
        return Retry.decorateSupplier(retry, script).get();
    }

    /**
     * Whether Redis refused the command with {@code TRYAGAIN}: its keys are split between two nodes while their slot
     * moves, and it did not run.
     */
    public static boolean slotMoving(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null && cause.getMessage().startsWith("TRYAGAIN")) {
                return true;
            }
        }
        return false;
    }

    /** The attempts whose pauses add up to at most the budget: Resilience4j bounds attempts, not time. */
    static int attemptsWithin(Duration budget) {
        long paused = 0;
        int attempts = 1;
        while (paused + BACKOFF.apply(attempts) <= budget.toMillis()) {
            paused += BACKOFF.apply(attempts);
            attempts++;
        }
        return attempts;
    }

    private static Counter outcome(MeterRegistry registry, String outcome) {
        return Counter.builder("flashstock.redis.tryagain")
                .description("Redis scripts refused TRYAGAIN while their slot moved, by outcome")
                .tag("outcome", outcome)
                .register(registry);
    }
}
