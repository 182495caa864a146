package io.flashstock.stock.locking;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.mockito.InOrder;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/** Lock order, wait and release, with mocks; what a lease that runs out does is {@link ItemLockLeaseExpiryIT}'s. */
class RedissonItemLocksTest {

    private final RedissonClient redisson = mock(RedissonClient.class);
    private final RLock lockA = lock("a");
    private final RLock lockB = lock("b");
    private final RedissonItemLocks locks = new RedissonItemLocks(redisson,
            new LockSettings(LockMode.REDISSON, Duration.ofSeconds(2), Duration.ofSeconds(30), 8, 2),
            new SimpleMeterRegistry());

    @Test
    void locksItemsInSortedOrderWithWaitAndLeaseAndUnlocksAfterTheWork() throws InterruptedException {
        when(lockA.tryLock(2000, 30_000, TimeUnit.MILLISECONDS)).thenReturn(true);
        when(lockB.tryLock(2000, 30_000, TimeUnit.MILLISECONDS)).thenReturn(true);
        when(lockA.isHeldByCurrentThread()).thenReturn(true);
        when(lockB.isHeldByCurrentThread()).thenReturn(true);

        String result = locks.callLocked(List.of("b", "a"), () -> {
            verify(lockA, never()).unlock();
            return "done";
        });

        assertThat(result).isEqualTo("done");
        InOrder order = inOrder(lockA, lockB);
        order.verify(lockA).tryLock(2000, 30_000, TimeUnit.MILLISECONDS);
        order.verify(lockB).tryLock(2000, 30_000, TimeUnit.MILLISECONDS);
        verify(lockA).unlock();
        verify(lockB).unlock();
    }

    @Test
    void aLockThatStaysTakenFailsTheBatchAndReleasesTheLocksAlreadyTaken() throws InterruptedException {
        when(lockA.tryLock(anyLong(), anyLong(), any())).thenReturn(true);
        when(lockA.isHeldByCurrentThread()).thenReturn(true);
        when(lockB.tryLock(anyLong(), anyLong(), any())).thenReturn(false);

        assertThatThrownBy(() -> locks.callLocked(List.of("a", "b"), () -> {
            throw new AssertionError("must not run without its locks");
        })).isInstanceOf(ItemLockTimeoutException.class).hasMessageContaining("item b");

        verify(lockA).unlock();
        verify(lockB, never()).unlock();
    }

    private RLock lock(String itemCode) {
        RLock lock = mock(RLock.class);
        when(lock.getName()).thenReturn("stock-lock:{" + itemCode + "}");
        when(redisson.getLock("stock-lock:{" + itemCode + "}")).thenReturn(lock);
        return lock;
    }
}
