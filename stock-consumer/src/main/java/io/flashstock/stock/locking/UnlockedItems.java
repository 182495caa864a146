package io.flashstock.stock.locking;

import java.util.Collection;
import java.util.function.Supplier;

/** Lock mode {@code none}: runs the work directly. */
class UnlockedItems implements ItemLocks {

    @Override
    public <T> T callLocked(Collection<String> itemCodes, Supplier<T> work) {
        return work.get();
    }
}
