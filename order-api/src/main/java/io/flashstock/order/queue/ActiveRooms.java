package io.flashstock.order.queue;

import org.springframework.stereotype.Component;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The waiting rooms this order-api ticks at every tick: those it took an entry for, or found someone waiting in or
 * an admission unused, until a tick finds them idle. Only a shortcut: which items have a waiting room at all comes
 * from the database ({@link AdmissionScheduler}), so a room is never forgotten with this order-api, nor with a Redis
 * shard other than its item's own.
 * <p>
 * Each mark carries a stamp, new at every entry, so that a tick that found the room idle forgets it only if no entry
 * came since the tick read the stamp: an entry marks its room after its script ran, so either the tick saw its
 * ticket, or the stamp changed.
 */
@Component
class ActiveRooms {

    private final AtomicLong stamps = new AtomicLong();
    private final ConcurrentHashMap<String, Long> rooms = new ConcurrentHashMap<>();

    /** An entry to the item's room (after its script ran). */
    void entered(String item) {
        rooms.put(item, stamps.incrementAndGet());
    }

    /** A tick found someone waiting in the room or an admission unused. */
    void busy(String item) {
        rooms.computeIfAbsent(item, any -> stamps.incrementAndGet());
    }

    /** The stamp to hand to {@link #idle} after the tick; null for a room not marked. */
    Long stamp(String item) {
        return rooms.get(item);
    }

    /** A tick found the room idle: forgets it, unless an entry came since {@code stamp} was read. */
    void idle(String item, Long stamp) {
        if (stamp != null) {
            rooms.remove(item, stamp);
        }
    }

    boolean contains(String item) {
        return rooms.containsKey(item);
    }

    Set<String> items() {
        return Set.copyOf(rooms.keySet());
    }
}
