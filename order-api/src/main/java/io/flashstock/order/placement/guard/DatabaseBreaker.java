package io.flashstock.order.placement.guard;

import io.flashstock.order.placement.core.PlacementSettings;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.stereotype.Component;
import org.springframework.transaction.CannotCreateTransactionException;

import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.function.Supplier;

/**
 * Refuses orders while the orders database is unreachable, before they take stock from Redis. Without it,
 * every request of an outage waits out the pool's connection timeout behind the others, and under load the
 * wait grows with the queue (docs/reliability.md, db-stop).
 * <p>
 * A Resilience4j circuit breaker over the order writes whose window is the last write: a write that could not
 * reach the database opens it; after {@code flashstock.order.outage.retry-after} one write probes again.
 * Only failures to reach the database count; a write refused for its own content counts as a success.
 */
@Component
public class DatabaseBreaker {

    private final CircuitBreaker breaker;

    public DatabaseBreaker(PlacementSettings settings, MeterRegistry meters) {
        CircuitBreakerConfig config = CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(1)
                .minimumNumberOfCalls(1)
                .failureRateThreshold(100)
                .permittedNumberOfCallsInHalfOpenState(1)
                .waitDurationInOpenState(settings.outage().retryAfter())
                .recordException(DatabaseBreaker::isUnreachable)
                .build();
        CircuitBreakerRegistry breakers = CircuitBreakerRegistry.of(config);
        this.breaker = breakers.circuitBreaker("orders-database");
        TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(breakers).bindTo(meters);
    }

    /** Whether a new order may take stock: false while the database is known to be unreachable. */
    public boolean admits() {
        if (!breaker.tryAcquirePermission()) {
            return false;
        }
        breaker.releasePermission();
        return true;
    }

    /**
     * Runs one write through the breaker.
     *
     * @throws CallNotPermittedException when the database is known to be unreachable and the write was not tried
     */
    public <T> T write(Supplier<T> write) {
        return breaker.executeSupplier(write);
    }

    /** Whether {@code failure}, or one of its causes, says the database could not be reached at all. */
    public static boolean isUnreachable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof CallNotPermittedException || t instanceof CannotCreateTransactionException
                    || t instanceof DataAccessResourceFailureException || t instanceof SQLTransientConnectionException
                    || t instanceof SQLNonTransientConnectionException || t instanceof SQLRecoverableException) {
                return true;
            }
        }
        return false;
    }
}
