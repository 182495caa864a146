package io.flashstock.order.queue;

import io.flashstock.order.stock.Gate;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Every tick, for every waiting room this order-api knows active ({@link ActiveRooms}), expires the admissions that
 * ended unused and admits the next users ({@link WaitingRoom#admit}); a room found idle is ticked again at its next
 * entry. Every {@value #SWEEP_EVERY_TICKS}th tick it also looks at every item the database says is sold through a
 * waiting room ({@code stock_item.gate = 'queue'}), as the token sweeper lists its items: so a room entered through
 * another order-api, one whose order-api died, or one an order's give-back made busy again, is ticked within a
 * second, and no key outside an item's own slot decides whether its room is ticked (on a Redis Cluster, a shard's
 * failover stops only its own items' admissions). Every order-api runs it; each item's tick runs once across them,
 * under the tick's lock in Redis. On a thread of its own, so that nothing else scheduled (the orders in doubt, which
 * may wait for the database) delays admissions.
 */
@Component
class AdmissionScheduler implements SmartLifecycle {

    /** How often, in ticks, the waiting rooms not known active here are looked at: 1 s at the default tick. */
    static final int SWEEP_EVERY_TICKS = 10;

    private static final Logger log = LoggerFactory.getLogger(AdmissionScheduler.class);

    private final WaitingRoom room;
    private final ActiveRooms active;
    private final JdbcClient jdbc;
    private final QueueSettings settings;
    private final Counter admitted;
    private final Counter expired;
    /** Items whose last tick failed, so that a shard down is logged once per item, not ten times a second. */
    private final Set<String> failing = ConcurrentHashMap.newKeySet();
    private volatile List<String> queueItems = List.of();
    private long ticks;
    private ScheduledExecutorService ticker;

    AdmissionScheduler(WaitingRoom room, ActiveRooms active, JdbcClient jdbc, QueueSettings settings,
                       MeterRegistry meters) {
        this.room = room;
        this.active = active;
        this.jdbc = jdbc;
        this.settings = settings;
        admitted = Counter.builder("flashstock.queue.admissions").tag("result", "admitted")
                .description("Waiting-room admissions").register(meters);
        expired = Counter.builder("flashstock.queue.admissions").tag("result", "expired")
                .description("Waiting-room admissions").register(meters);
    }

    /** One tick of every active room, and every {@value #SWEEP_EVERY_TICKS}th of every other queue item. */
    void tick() {
        if (ticks++ % SWEEP_EVERY_TICKS == 0) {
            for (String item : listQueueItems()) {
                if (stopping()) {
                    return;
                }
                if (!active.contains(item)) {
                    tick(item);
                }
            }
        }
        for (String item : active.items()) {
            if (stopping()) {
                return;
            }
            tick(item);
        }
    }

    /** {@link #stop} interrupted the ticker: no further item is ticked. */
    private static boolean stopping() {
        return Thread.currentThread().isInterrupted();
    }

    /** One item's tick; a failure (its shard away, say) is logged and skips this item only, until the next tick. */
    private void tick(String item) {
        Long stamp = active.stamp(item);
        WaitingRoom.Tick tick;
        try {
            tick = room.admit(item);
        } catch (RuntimeException e) {
            if (failing.add(item)) {
                log.warn("waiting-room tick of {} failed (tried again at its next tick): {}", item, e.toString());
            }
            return;
        }
        if (failing.remove(item)) {
            log.info("waiting-room tick of {} works again", item);
        }
        if (tick.idle()) {
            // nothing to tick (sold out and drained, or no longer a waiting room): left to the sweep until its
            // next entry, so that the ticks cost what is active, not what was
            active.idle(item, stamp);
        } else {
            active.busy(item);
        }
        record(item, tick);
    }

    /** The items sold through a waiting room, from the database; the last list while it does not answer. */
    private List<String> listQueueItems() {
        try {
            queueItems = jdbc.sql("SELECT item_code FROM stock_item WHERE gate = ?").param(Gate.QUEUE.code())
                    .query(String.class).list();
        } catch (DataAccessException e) {
            log.warn("could not list the waiting rooms from the database (the last list is ticked): {}", e.toString());
        }
        return queueItems;
    }

    private void record(String item, WaitingRoom.Tick tick) {
        admitted.increment(tick.admitted());
        expired.increment(tick.expired());
        if (tick.admitted() > 0 || tick.expired() > 0) {
            log.debug("waiting room {}: {} admitted, {} expired, {} waiting, {} units held by admissions",
                    item, tick.admitted(), tick.expired(), tick.waiting(), tick.admittedUnits());
        }
    }

    @Override
    public synchronized void start() {
        ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
            var thread = new Thread(runnable, "waiting-room");
            thread.setDaemon(true);
            return thread;
        });
        long tick = settings.tick().toMillis();
        ticker.scheduleAtFixedRate(this::tickQuietly, tick, tick, TimeUnit.MILLISECONDS);
    }

    private void tickQuietly() {
        try {
            tick();
        } catch (RuntimeException e) {
            log.warn("waiting-room tick failed: {}", e.toString());
        }
    }

    /** Returns once a tick under way has ended, so that nothing is admitted after it returns. */
    @Override
    public synchronized void stop() {
        if (ticker != null) {
            ticker.shutdownNow();
            try {
                if (!ticker.awaitTermination(10, TimeUnit.SECONDS)) {
                    log.warn("a waiting-room tick was still under way 10 s after the scheduler was stopped");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ticker = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return ticker != null;
    }
}
