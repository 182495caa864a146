package io.flashstock.stock.locking;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Lock mode {@code redisson}: one {@link RLock} per item, taken in sorted item order so that two batches sharing
 * items cannot deadlock, and released only after the work (the batch's transaction, commit included) is done.
 */
class RedissonItemLocks implements ItemLocks {

    private static final Logger log = LoggerFactory.getLogger(RedissonItemLocks.class);

    private final RedissonClient redisson;
    private final LockSettings properties;
    private final Timer waitTimer;

    RedissonItemLocks(RedissonClient redisson, LockSettings properties, MeterRegistry registry) {
        this.redisson = redisson;
        this.properties = properties;
        this.waitTimer = Timer.builder("flashstock.consumer.lock.wait")
                .description("Time a batch waited for the locks of all its items")
                .publishPercentileHistogram()
                .register(registry);
    }

    /** The Redis key of an item's lock; the hash tag keeps it in the item's Redis Cluster slot. */
    static String lockKey(String itemCode) {
        return "stock-lock:{" + itemCode + "}";
    }

    @Override
    public <T> T callLocked(Collection<String> itemCodes, Supplier<T> work) {
        List<RLock> held = new ArrayList<>();
        try {
            long started = System.nanoTime();
            for (String itemCode : new TreeSet<>(itemCodes)) {
                RLock lock = redisson.getLock(lockKey(itemCode));
                if (!lock.tryLock(properties.waitTime().toMillis(), properties.leaseTime().toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new ItemLockTimeoutException(itemCode, properties.waitTime());
                }
                held.add(lock);
            }
            waitTimer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            return work.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for item locks", e);
        } finally {
            held.forEach(RedissonItemLocks::release);
        }
    }

    private static void release(RLock lock) {
        if (lock.isHeldByCurrentThread()) {
            lock.unlock();
        } else {
            // the database's conditional updates still kept the batch exact; the lease is too short for it
            log.warn("lock {} expired before its batch finished; raise flashstock.lock.lease-time", lock.getName());
        }
    }
}
