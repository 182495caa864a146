package io.flashstock.stock.locking;

import java.time.Duration;

/** An item's lock stayed taken longer than the configured wait: transient, the batch is retried. */
public class ItemLockTimeoutException extends RuntimeException {

    public ItemLockTimeoutException(String itemCode, Duration wait) {
        super("lock of item " + itemCode + " not acquired within " + wait);
    }
}
