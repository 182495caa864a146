package io.flashstock.order.placement;

import io.flashstock.order.stock.StockSettings;
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
 * The Redis gate's steps after the take, with Redis mocked: a reply that timed out (the client's timeout, under a
 * starved JVM, may even drop the command unsent) is asked for again, as the take is, since each step is guarded and
 * gives or records once however often it is sent.
 */
class RedisStockGateTest {

    private final StringRedisTemplate redis = mock(StringRedisTemplate.class);
    /**
     * A deadline no first call outlasts: with 200 ms, Mockito's first answer alone took longer on a loaded box
     * (load average ~20) and the step was never sent again, which failed the three tests of the resend.
     */
    private final RedisStockGate gate = gate(Duration.ofSeconds(30));

    @Test
    @SuppressWarnings("unchecked")
    void aGiveBackWhoseReplyTimedOutIsSentAgain() {
        when(redis.execute(any(RedisScript.class), anyList(), any(Object[].class)))
                .thenThrow(new QueryTimeoutException("Redis command timed out")).thenReturn(1L);

        assertThat(gate.giveBack(order())).isTrue();

        verify(redis, times(2)).execute(any(RedisScript.class), anyList(), any(Object[].class));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aGiveBackInDoubtWhoseReplyTimedOutIsSentAgain() {
        when(redis.execute(any(RedisScript.class), anyList(), any(Object[].class)))
                .thenThrow(new QueryTimeoutException("Redis command timed out")).thenReturn(1L);

        assertThat(gate.giveBackInDoubt(order())).isTrue();
    }

    @Test
    @SuppressWarnings("unchecked")
    void anOrderHeldInDoubtWhoseRecordTimedOutIsRecordedAgain() {
        when(redis.execute(any(RedisScript.class), anyList(), any(Object[].class)))
                .thenThrow(new QueryTimeoutException("Redis command timed out")).thenReturn(1L);

        gate.holdInDoubt(order(), "this-order-api");

        verify(redis, times(2)).execute(any(RedisScript.class), anyList(), any(Object[].class));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aGiveBackThatKeepsTimingOutFailsAfterTheTakeDeadline() {
        when(redis.execute(any(RedisScript.class), anyList(), any(Object[].class)))
                .thenThrow(new QueryTimeoutException("Redis command timed out"));

        assertThatThrownBy(() -> gate(Duration.ofMillis(200)).giveBack(order())).isInstanceOf(QueryTimeoutException.class);

        verify(redis, atLeast(1)).execute(any(RedisScript.class), anyList(), any(Object[].class));
    }

    private static PlacedOrder order() {
        return new PlacedOrder("order-1", UUID.randomUUID(), new OrderCommand("item", "user", 2, "key"), 3, 5, 8,
                Instant.EPOCH);
    }

    private RedisStockGate gate(Duration takeDeadline) {
        return new RedisStockGate(redis, new StockSettings(Duration.ofHours(24), Duration.ofDays(7),
                new StockSettings.Reload(Duration.ofSeconds(1), Duration.ofSeconds(15))), withTakeDeadline(takeDeadline));
    }

    private static PlacementSettings withTakeDeadline(Duration deadline) {
        var defaults = TestSettings.defaults();
        return new PlacementSettings(new PlacementSettings.Redis(Duration.ofSeconds(60), deadline),
                defaults.groupCommit(), defaults.outage(), defaults.inDoubt(), defaults.overload(), defaults.dbLock());
    }
}
