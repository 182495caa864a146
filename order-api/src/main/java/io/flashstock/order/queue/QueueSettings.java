package io.flashstock.order.queue;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * The waiting room of the items whose gate is {@code queue}. Every order-api must run with the same values: the one
 * that holds an item's tick admits with its own.
 *
 * @param admitPerTick the most waiting users admitted per tick and item, first come, first served (never more
 *                     units than the item has left minus those of the admissions not yet used)
 * @param tick how often each item's waiting room admits; 50 per 100 ms lets in 500 users a second, about what
 *             one order-api sells on two cores, so that admitted users find the order path unqueued
 * @param admissionTtl how long an admitted user may order; an admission unused by then ends (EXPIRED) and its
 *                     units go to the next in line
 * @param ticketTtl how long a ticket is kept (waiting, or to answer its poll and replay its order); must outlast
 *                  the admission, and should outlast the sale
 * @param maxPollAfter the longest {@code pollAfterMillis} suggested to a waiting user (half the estimated wait,
 *                     at least one tick)
 * @param maxWaiting the most tickets waiting per item, whatever its stock: what bounds the Redis memory a flood of
 *                   entries under throwaway user ids can take (about 0.5 KB a ticket: 100,000 are ~50 MB); the
 *                   entry past it is refused, 429 {@code QUEUE_FULL}
 * @param waitingPerUnit the most tickets waiting per unit the item has left (counter and orders in doubt), below
 *                       {@code max-waiting}: a place past ten per unit would almost surely end sold out, and bots
 *                       that fill the queue and never order hold it up for at most this many admission rounds
 *                       ({@code admission-ttl} each) before the users behind them
 */
@ConfigurationProperties("flashstock.queue")
public record QueueSettings(@DefaultValue("50") int admitPerTick, @DefaultValue("100ms") Duration tick,
                            @DefaultValue("30s") Duration admissionTtl, @DefaultValue("1h") Duration ticketTtl,
                            @DefaultValue("2s") Duration maxPollAfter, @DefaultValue("100000") long maxWaiting,
                            @DefaultValue("10") long waitingPerUnit) {

    public QueueSettings {
        if (admitPerTick < 1 || tick.toMillis() < 10) {
            throw new IllegalArgumentException("flashstock.queue needs admit-per-tick >= 1 and a tick of at least "
                    + "10ms: " + admitPerTick + ", " + tick);
        }
        if (maxWaiting < 1 || waitingPerUnit < 1) {
            throw new IllegalArgumentException("flashstock.queue needs max-waiting and waiting-per-unit >= 1: "
                    + maxWaiting + ", " + waitingPerUnit);
        }
        if (admissionTtl.toMillis() < 1 || ticketTtl.compareTo(admissionTtl) <= 0) {
            throw new IllegalArgumentException("flashstock.queue.ticket-ttl (" + ticketTtl
                    + ") must outlast admission-ttl (" + admissionTtl + "), which must be positive");
        }
    }

    /**
     * How long an item's tick lock is held: nine tenths of a tick, so that the order-api whose turn it is always
     * finds the last tick's lock gone, and two order-apis ticking out of step admit at most about one tick's
     * users per tick between them.
     */
    long tickLockMillis() {
        return Math.max(1, tick.toMillis() * 9 / 10);
    }
}
