package io.flashstock.stock.consuming;

import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** When each listener thread's batch in flight started: a batch that never ends holds its partitions for good. */
@Component
class BatchesInFlight {

    private final Map<Thread, Long> started = new ConcurrentHashMap<>();

    /** Marks the calling thread's batch as started; closing the result marks it ended. */
    Batch start() {
        Thread thread = Thread.currentThread();
        started.put(thread, System.nanoTime());
        return () -> started.remove(thread);
    }

    /** How long the oldest batch in flight has been running, if any is. */
    Optional<Duration> oldest() {
        long now = System.nanoTime();
        return started.values().stream().map(at -> Duration.ofNanos(now - at)).max(Duration::compareTo);
    }

    interface Batch extends AutoCloseable {
        @Override
        void close();
    }
}
