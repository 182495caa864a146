package io.flashstock.stock.locking;

import java.util.Collection;
import java.util.function.Supplier;

/** Serialises the batches that touch the same items, across all consumer instances. */
public interface ItemLocks {

    /**
     * Runs {@code work} while holding the lock of every item, and releases them after it returned or threw.
     *
     * @throws ItemLockTimeoutException if an item's lock did not become free within the configured wait
     */
    <T> T callLocked(Collection<String> itemCodes, Supplier<T> work);
}
