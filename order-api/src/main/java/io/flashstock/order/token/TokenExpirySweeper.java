package io.flashstock.order.token;

import io.flashstock.order.stock.Gate;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Gives back the units of tokens that expired unused, every {@code flashstock.token.sweep-every}, for each item
 * sold through the token gate. Each hold is given back by one atomic step that deletes it (token-expire.lua), so
 * every instance may sweep at once and each unit comes back exactly once; a redemption that moved the hold to
 * ordering first keeps it. Holds an attempt left ordering past {@code settle-after} are settled
 * ({@link TokenSettlement}). On a thread of its own, not Spring's one scheduler thread: it lists the token items
 * from the database, and a database stall must not stall the orders in doubt (InDoubtOrders) with it, nor they it.
 */
@Component
class TokenExpirySweeper implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(TokenExpirySweeper.class);

    private final TokenHolds holds;
    private final TokenSettlement settlement;
    private final JdbcClient jdbc;
    private final Duration every;
    private final boolean enabled;
    private final Counter released;
    private ScheduledExecutorService sweeper;

    TokenExpirySweeper(TokenHolds holds, TokenSettlement settlement, JdbcClient jdbc, TokenSettings settings,
                       MeterRegistry meters) {
        this.holds = holds;
        this.settlement = settlement;
        this.jdbc = jdbc;
        this.every = settings.sweepEvery();
        this.enabled = settings.enabled();
        this.released = Counter.builder("flashstock.token.released").baseUnit("units")
                .description("Units of purchase tokens that expired unused, given back to the stock").register(meters);
    }

    @Override
    public synchronized void start() {
        if (!enabled) {
            return;
        }
        sweeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
            var thread = new Thread(runnable, "token-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        sweeper.scheduleWithFixedDelay(this::sweepQuietly, every.toMillis(), every.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        if (sweeper != null) {
            sweeper.shutdownNow();
            sweeper = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return sweeper != null;
    }

    private void sweepQuietly() {
        try {
            sweep();
        } catch (RuntimeException e) {
            log.warn("token sweep failed (tried again in {}): {}", every, e.toString());
        }
    }

    /** One sweep of every token item; returns the units given back. */
    long sweep() {
        long units = 0;
        for (String item : tokenItems()) {
            units += sweep(item);
        }
        return units;
    }

    long sweep(String itemCode) {
        long units = 0;
        var abandoned = new LinkedHashMap<String, String>();
        TokenHolds.Sweep step;
        // each step takes every hold it looks at off the due list (given back, or due again after settle-after)
        do {
            step = holds.expire(itemCode);
            units += step.units();
            abandoned.putAll(step.abandoned());
        } while (step.lookedAt() == TokenHolds.SWEEP_BATCH);
        if (units > 0) {
            released.increment(units);
            log.info("{} units of expired tokens of item {} came back to the stock", units, itemCode);
        }
        if (!abandoned.isEmpty()) {
            settlement.settle(itemCode, abandoned);
        }
        return units;
    }

    private List<String> tokenItems() {
        return jdbc.sql("SELECT item_code FROM stock_item WHERE gate = ?").param(Gate.TOKEN.code())
                .query(String.class).list();
    }
}
