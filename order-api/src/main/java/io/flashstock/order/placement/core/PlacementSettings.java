package io.flashstock.order.placement.core;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * How orders are placed: the Redis gate's retries, the group commit, outages, orders in doubt, load shedding and
 * the DB-lock baseline. On {@code flashstock.order}, which the other packages' settings share: each binds its own
 * keys of it.
 *
 * @param redis how the Redis gate's take whose reply timed out, or that was refused while its slot moved, is sent
 *              again
 * @param groupCommit how concurrent orders share database transactions
 * @param outage how orders are refused while the orders database is unreachable
 * @param inDoubt how orders whose commit could not be confirmed are settled
 * @param overload how many orders are handled at once before more are refused
 * @param dbLock the DB-lock baseline's own connection pool
 */
@ConfigurationProperties("flashstock.order")
public record PlacementSettings(
        @DefaultValue Redis redis,
        @DefaultValue GroupCommit groupCommit,
        @DefaultValue Outage outage,
        @DefaultValue InDoubt inDoubt,
        @DefaultValue Overload overload,
        @DefaultValue DbLock dbLock) {

    /**
     * How the Redis gate sends a take again. Its client's threads, on the same prefix, are set in
     * {@code config.RedisClientSettings}.
     *
     * @param takeRecordTtl how long Redis keeps each order's record of what it took, which makes a take sent
     *                      again (after a timed-out reply, or by Lettuce after a reconnect) take nothing twice,
     *                      and a give-back give once; must outlast {@code takeDeadline} and the order's write
     *                      (a give-back after it gives nothing: drift the reconciliation shows)
     * @param takeDeadline how long a take whose replies time out is sent again; after it the order is answered
     *                     503 without knowing whether it took stock (reconciliation shows such drift). A give-back,
     *                     or the record of an order in doubt, whose reply timed out is sent again as long
     * @param slotMovingBudget how long a script refused {@code TRYAGAIN} (its keys split between two Redis Cluster
     *                         nodes while their slot moves: it ran nothing) is sent again, 10 ms after the first
     *                         refusal, then 1.5 times longer each time up to 40 ms; after it the request is answered
     *                         503 {@code REDIS_UNAVAILABLE} with Retry-After. Applies to the take, a token's issue
     *                         and redemption, and the waiting room's scripts. Short: each waiting request holds
     *                         a server thread (at 1,000 orders/s of the moving item, 100 ms holds 100 of Tomcat's
     *                         200), and a slot of many keys stays split for seconds (3,207 keys: 4.3 s in the fault
     *                         suite), which no request should wait out; a slot of few keys moves in a handful of
     *                         round trips. 0 answers 503 at once
     */
    public record Redis(@DefaultValue("60s") Duration takeRecordTtl, @DefaultValue("5s") Duration takeDeadline,
                        @DefaultValue("100ms") Duration slotMovingBudget) {

        public Redis {
            if (takeRecordTtl.compareTo(takeDeadline) <= 0) {
                throw new IllegalArgumentException("flashstock.order.redis.take-record-ttl (" + takeRecordTtl
                        + ") must outlast take-deadline (" + takeDeadline + ")");
            }
            if (slotMovingBudget.isNegative() || slotMovingBudget.compareTo(takeDeadline) >= 0) {
                throw new IllegalArgumentException("flashstock.order.redis.slot-moving-budget (" + slotMovingBudget
                        + ") must be at least 0 and less than take-deadline (" + takeDeadline + ")");
            }
        }
    }

    /**
     * Group commit of the Redis gate's orders: orders that arrive while a transaction is being written are
     * written together in the next one (batched inserts, one commit), and each request is answered only
     * after its own rows committed. Nothing waits to fill a batch: a batch is whatever queued meanwhile.
     *
     * @param writers transactions written at the same time (database connections used for orders);
     *                0 writes every order in a transaction of its own
     * @param maxBatch the most orders in one transaction
     */
    public record GroupCommit(@DefaultValue("1") int writers, @DefaultValue("64") int maxBatch) {

        public GroupCommit {
            if (writers < 0 || maxBatch < 1) {
                throw new IllegalArgumentException("flashstock.order.group-commit needs writers >= 0 and max-batch >= 1");
            }
        }
    }

    /**
     * While the orders database is unreachable (the last write could not get a connection), new orders are
     * answered 503 at once, before they take stock from Redis, instead of each waiting out the pool's
     * connection timeout behind the others.
     *
     * @param retryAfter how long orders are refused before one write tries the database again
     */
    public record Outage(@DefaultValue("1s") Duration retryAfter) {

        public Outage {
            if (retryAfter.isNegative() || retryAfter.isZero()) {
                throw new IllegalArgumentException("flashstock.order.outage.retry-after must be positive: " + retryAfter);
            }
        }
    }

    /**
     * An order whose commit failed while the database could not be asked whether it took (the database went
     * away mid-commit) keeps its stock and is answered 503; it is looked up again until the database answers,
     * and then stands or gets its stock back. If its order-api dies first, any other settles it.
     *
     * @param checkEvery how often the orders in doubt are looked up while any are left, and how often each
     *                   order-api looks for those of order-apis that died
     * @param abandonedAfter how long an order-api that stops marking itself alive (it does so four times in this
     *                       time) is taken for dead, and how old an order in doubt must be, before another
     *                       order-api settles it; the same on every order-api
     */
    public record InDoubt(@DefaultValue("1s") Duration checkEvery, @DefaultValue("10s") Duration abandonedAfter) {

        public InDoubt {
            if (checkEvery.isNegative() || checkEvery.isZero()) {
                throw new IllegalArgumentException("flashstock.order.in-doubt.check-every must be positive: " + checkEvery);
            }
            if (abandonedAfter.toMillis() < 100) {
                throw new IllegalArgumentException("flashstock.order.in-doubt.abandoned-after must be at least 100ms: "
                        + abandonedAfter);
            }
        }
    }

    /**
     * Load shedding, off by default: with {@code maxInFlight} above 0, a request to the Redis gate's endpoint that
     * finds that many orders in flight waits at most {@code maxWait} for one to end, and is otherwise answered 503
     * {@code OVERLOADED} with {@code Retry-After}, before its body is read and before it takes stock. It bounds
     * the orders in flight, not the wait in Tomcat's queue before them; on two cores shared with the load
     * generator it answered fewer orders at twice the capacity than no bound did, and refused some at capacity
     * (docs/performance.md, overload), so it is for a machine whose CPU the clients do not share. The DB-lock
     * baseline is never bounded, so that the comparison shows its own queueing.
     *
     * @param maxInFlight orders handled at once; 0: no bound. Keep it below {@code server.tomcat.threads.max}, so
     *                    that threads are left to refuse the excess
     * @param maxWait how long a request past the bound waits for a slot: short, so that a refusal is fast, but
     *                long enough for a spike of sold-out answers, which end in a millisecond, to pass
     */
    public record Overload(@DefaultValue("0") int maxInFlight, @DefaultValue("10ms") Duration maxWait) {

        public Overload {
            if (maxInFlight < 0 || maxWait.isNegative()) {
                throw new IllegalArgumentException("flashstock.order.overload needs max-in-flight >= 0 and a "
                        + "max-wait >= 0: " + maxInFlight + ", " + maxWait);
            }
        }
    }

    /**
     * The DB-lock baseline's bound and connection pool, apart from the engine's, so that its orders, which hold a
     * server thread and a connection while they queue on their item's row lock, cannot take the Redis gate's.
     *
     * @param maxInFlight the baseline's orders handled at once; past it they are refused 503 {@code OVERLOADED} at
     *                    once. Its orders hold a server thread while they queue on their row, so unbounded they
     *                    could take every thread of {@code server.tomcat.threads.max} (200) from the engine's
     *                    orders; comparison runs of many simultaneous users raise it
     * @param poolSize connections of the baseline
     * @param connectionTimeout how long a baseline order waits for one: 1 s, as the orders pool, so that a database
     *                          outage is a fast 503 here too; the comparison runs raise it to Hikari's 30 s, as the
     *                          published baselines use, since the strategy queues every order of an item for one
     */
    public record DbLock(@DefaultValue("50") int maxInFlight, @DefaultValue("10") int poolSize,
                         @DefaultValue("1s") Duration connectionTimeout) {

        public DbLock {
            if (maxInFlight < 1 || poolSize < 1 || connectionTimeout.toMillis() < 250) {
                throw new IllegalArgumentException("flashstock.order.db-lock needs max-in-flight and pool-size "
                        + ">= 1 and a connection-timeout of at least 250ms (Hikari's least): " + maxInFlight + ", "
                        + poolSize + ", " + connectionTimeout);
            }
        }
    }
}
