package io.flashstock.order.placement.indoubt;

import io.flashstock.order.placement.core.PlacementSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * This order-api's name among those sharing Redis, and its mark of life there ({@code order-api:live:{name}}), set
 * to expire after {@code flashstock.order.in-doubt.abandoned-after} and renewed four times in that time. The orders
 * in doubt an order-api holds are its own to settle while its mark lives; once it has expired (the order-api died,
 * or stopped), any other settles them ({@link AbandonedInDoubtOrders}). A new name at every start: a restarted
 * order-api no longer holds what it held in memory. On a thread of its own, so that no database lookup delays it.
 */
@Component
public class OrderApiLiveness implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(OrderApiLiveness.class);
    private static final String PREFIX = "order-api:live:";

    private final String self = UUID.randomUUID().toString();
    private final StringRedisTemplate redis;
    private final Duration ttl;
    private ScheduledExecutorService marker;

    public OrderApiLiveness(StringRedisTemplate redis, PlacementSettings settings) {
        this.redis = redis;
        this.ttl = settings.inDoubt().abandonedAfter();
    }

    /** The name the orders in doubt this order-api holds are recorded under. */
    public String self() {
        return self;
    }

    /** Whether the order-api of this name has marked itself alive within the last {@code abandoned-after}. */
    boolean isLive(String name) {
        return Boolean.TRUE.equals(redis.hasKey(PREFIX + name));
    }

    void mark() {
        try {
            redis.opsForValue().set(PREFIX + self, "1", ttl);
        } catch (DataAccessException e) {
            log.warn("could not mark this order-api alive in Redis ({}); once its mark expires, other order-apis "
                    + "may settle the orders in doubt it holds", e.toString());
        }
    }

    @Override
    public synchronized void start() {
        mark();
        marker = Executors.newSingleThreadScheduledExecutor(runnable -> {
            var thread = new Thread(runnable, "order-api-liveness");
            thread.setDaemon(true);
            return thread;
        });
        long every = Math.max(1, ttl.toMillis() / 4);
        marker.scheduleAtFixedRate(this::mark, every, every, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        if (marker != null) {
            marker.shutdownNow();
            marker = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return marker != null;
    }
}
