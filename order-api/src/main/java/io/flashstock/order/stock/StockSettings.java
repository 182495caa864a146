package io.flashstock.order.stock;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * The lifetimes of the stock's Redis keys ({@link StockKeys}) and how a counter is rebuilt. On
 * {@code flashstock.order}, which the other packages' settings share: each binds its own keys of it.
 *
 * @param idempotencyTtl how long Redis keeps the first answer to an {@code Idempotency-Key}, which answers a
 *                       replay without the database; after it (or after Redis lost it) the order's row answers,
 *                       as the database holds one order per item and key for as long as it keeps the order; and
 *                       how long after Redis lost an item's keys a key it does not have is looked up in the
 *                       database before anything is sold to it
 * @param perUserTtl how long a user's bought units of an item are remembered for the per-user limit; should
 *                   outlast the sale
 * @param reload how the Redis counter of an item is rebuilt from the database (by an operator, or by the
 *               engine when the gate finds the counter missing or untrusted)
 */
@ConfigurationProperties("flashstock.order")
public record StockSettings(
        @DefaultValue("24h") Duration idempotencyTtl,
        @DefaultValue("7d") Duration perUserTtl,
        @DefaultValue Reload reload) {

    /**
     * Rebuilding an item's Redis counter: its load epoch is raised in the database (which waits for the order
     * transactions of the old epoch and fences out the rest), the orders are counted, the counter is loaded.
     *
     * @param fenceTimeout how long the raise may wait for order transactions still holding the old epoch (and a
     *                     reset for its row lock); after it the rebuild fails and nothing changed. Keep it below
     *                     the driver's {@code socketTimeout} (2 s): a statement cut by the socket would leave its
     *                     lock request queued on the server, holding up the orders behind it
     * @param lockTtl how long one order-api holds an item's reload lock; outlasts a rebuild, and bounds how
     *                long a rebuild that died with its order-api delays the next
     */
    public record Reload(@DefaultValue("1s") Duration fenceTimeout, @DefaultValue("15s") Duration lockTtl) {

        public Reload {
            if (lockTtl.compareTo(fenceTimeout) <= 0) {
                throw new IllegalArgumentException("flashstock.order.reload.lock-ttl (" + lockTtl
                        + ") must outlast fence-timeout (" + fenceTimeout + ")");
            }
        }
    }
}
