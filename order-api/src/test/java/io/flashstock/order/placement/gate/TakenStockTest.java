package io.flashstock.order.placement.gate;

import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.placement.core.PlacementSettings;
import io.flashstock.order.placement.core.TestSettings;
import org.junit.jupiter.api.Test;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.Mockito.atLeast;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * The steps after the Redis gate's take ({@link TakenStock}), with Redis mocked: a reply that timed out (the
 * client's timeout, under a starved JVM, may even drop the command unsent) is asked for again, as the take is, since
 * each step is guarded and gives or records once however often it is sent.
 */
class TakenStockTest {

    private final StringRedisTemplate redis = mock(StringRedisTemplate.class);
    /**
     * A deadline no first call outlasts: with 200 ms, Mockito's first answer alone took longer on a loaded box
     * (load average ~20) and the step was never sent again, which failed the three tests of the resend.
     */
    private final TakenStock taken = taken(Duration.ofSeconds(30));

    @Test
    @SuppressWarnings("unchecked")
    void aGiveBackWhoseReplyTimedOutIsSentAgain() {
        when(redis.execute(any(RedisScript.class), anyList(), any(Object[].class)))
                .thenThrow(new QueryTimeoutException("Redis command timed out")).thenReturn(1L);

        assertThat(taken.giveBack(order())).isTrue();

        verify(redis, times(2)).execute(any(RedisScript.class), anyList(), any(Object[].class));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aGiveBackInDoubtWhoseReplyTimedOutIsSentAgain() {
        when(redis.execute(any(RedisScript.class), anyList(), any(Object[].class)))
                .thenThrow(new QueryTimeoutException("Redis command timed out")).thenReturn(1L);

        assertThat(taken.giveBackInDoubt(order())).isTrue();
    }

    @Test
    @SuppressWarnings("unchecked")
    void anOrderHeldInDoubtWhoseRecordTimedOutIsRecordedAgain() {
        when(redis.execute(any(RedisScript.class), anyList(), any(Object[].class)))
                .thenThrow(new QueryTimeoutException("Redis command timed out")).thenReturn(1L);

        taken.holdInDoubt(order(), "this-order-api");

        verify(redis, times(2)).execute(any(RedisScript.class), anyList(), any(Object[].class));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aGiveBackThatKeepsTimingOutFailsAfterTheTakeDeadline() {
        when(redis.execute(any(RedisScript.class), anyList(), any(Object[].class)))
                .thenThrow(new QueryTimeoutException("Redis command timed out"));

        assertThatThrownBy(() -> taken(Duration.ofMillis(200)).giveBack(order())).isInstanceOf(QueryTimeoutException.class);

        verify(redis, atLeast(1)).execute(any(RedisScript.class), anyList(), any(Object[].class));
    }

    private static PlacedOrder order() {
        return new PlacedOrder("order-1", UUID.randomUUID(), new OrderCommand("item", "user", 2, "key"), 3, 5, 8,
                Instant.EPOCH);
    }

    private TakenStock taken(Duration takeDeadline) {
        return new TakenStock(redis, withTakeDeadline(takeDeadline));
    }

    private static PlacementSettings withTakeDeadline(Duration deadline) {
        var defaults = TestSettings.defaults();
        return new PlacementSettings(new PlacementSettings.Redis(Duration.ofSeconds(60), deadline, Duration.ofMillis(100)),
                defaults.groupCommit(), defaults.outage(), defaults.inDoubt(), defaults.overload(), defaults.dbLock());
    }
}
