package io.flashstock.order.queue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Every tick, for every item with a waiting room, expires the admissions that ended unused and admits the next
 * users ({@link WaitingRoom#admit}); an item with nothing to tick is unlisted ({@link WaitingRoom#unlist}) until
 * its next entry. Every order-api runs it; each item's tick runs once across them, under the
 * tick's lock in Redis. On a thread of its own, so that nothing else scheduled (the orders in doubt, which may
 * wait for the database) delays admissions.
 */
@Component
class AdmissionScheduler implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(AdmissionScheduler.class);

    private final WaitingRoom room;
    private final QueueSettings settings;
    private final Counter admitted;
    private final Counter expired;
    private ScheduledExecutorService ticker;

    AdmissionScheduler(WaitingRoom room, QueueSettings settings, MeterRegistry meters) {
        this.room = room;
        this.settings = settings;
        admitted = Counter.builder("flashstock.queue.admissions").tag("result", "admitted")
                .description("Waiting-room admissions").register(meters);
        expired = Counter.builder("flashstock.queue.admissions").tag("result", "expired")
                .description("Waiting-room admissions").register(meters);
    }

    /** One tick of every active item; a failure is logged and the next tick tries again. */
    void tick() {
        try {
            for (String item : room.activeItems()) {
                var tick = room.admit(item);
                if (tick.idle()) {
                    // nothing to tick (sold out and drained, or no longer a waiting room): not ticked again
                    // until its next entry, so that the ticks cost what is active, not what was
                    tick = room.unlist(item);
                }
                record(item, tick);
            }
        } catch (RuntimeException e) {
            log.warn("waiting-room tick failed: {}", e.toString());
        }
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
        ticker.scheduleAtFixedRate(this::tick, tick, tick, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        if (ticker != null) {
            ticker.shutdownNow();
            ticker = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return ticker != null;
    }
}
