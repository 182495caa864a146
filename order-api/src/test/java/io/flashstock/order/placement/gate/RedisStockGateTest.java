package io.flashstock.order.placement.gate;

import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.placement.core.PlacementSettings;
import io.flashstock.order.placement.core.TestSettings;
import io.flashstock.order.stock.StockSettings;
import io.flashstock.order.web.ProblemException;
import io.flashstock.order.web.ProblemType;
import io.lettuce.core.RedisCommandExecutionException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
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

    @Test
    @SuppressWarnings("unchecked")
    void aTakeRefusedTryAgainIsSentAgainAndCounted() {
        when(redis.execute(any(RedisScript.class), anyList(), any(Object[].class)))
                .thenThrow(tryAgain()).thenReturn(List.of("SOLD_OUT", "0", "3"));

        assertThat(gate.take(new OrderCommand("item", "user", 1, null), "order-1"))
                .isInstanceOf(GateResult.SoldOut.class);

        verify(redis, times(2)).execute(any(RedisScript.class), anyList(), any(Object[].class));
        assertThat(meters.counter("flashstock.redis.tryagain", "outcome", "retried").count()).isEqualTo(1);
        assertThat(meters.counter("flashstock.redis.tryagain", "outcome", "ran").count()).isEqualTo(1);
    }

    @Test
    @SuppressWarnings("unchecked")
    void aTakeRefusedTryAgainPastItsBudgetIsA503() {
        when(redis.execute(any(RedisScript.class), anyList(), any(Object[].class))).thenThrow(tryAgain());

        assertThatThrownBy(() -> gate.take(new OrderCommand("item", "user", 1, null), "order-1"))
                .isInstanceOfSatisfying(ProblemException.class, problem -> assertThat(problem.type())
                        .isEqualTo(ProblemType.REDIS_UNAVAILABLE))
                .hasMessageContaining("being moved");

        // 10 + 15 + 22.5 + 33.75 ms of pauses fit in the 100 ms budget: 5 attempts
        verify(redis, times(5)).execute(any(RedisScript.class), anyList(), any(Object[].class));
        assertThat(meters.counter("flashstock.redis.tryagain", "outcome", "refused").count()).isEqualTo(1);
    }

    private static RedisSystemException tryAgain() {
        return new RedisSystemException("Error in execution", new RedisCommandExecutionException(
                "TRYAGAIN Multiple keys request during rehashing of slot"));
    }

    private static PlacedOrder order() {
        return new PlacedOrder("order-1", UUID.randomUUID(), new OrderCommand("item", "user", 2, "key"), 3, 5, 8,
                Instant.EPOCH);
    }

    private RedisStockGate gate(Duration takeDeadline) {
        return new RedisStockGate(redis, new StockSettings(Duration.ofHours(24), Duration.ofDays(7),
                new StockSettings.Reload(Duration.ofSeconds(1), Duration.ofSeconds(15))), withTakeDeadline(takeDeadline),
                new SlotMovingRetry(withTakeDeadline(takeDeadline), meters), meters);
    }

    private static PlacementSettings withTakeDeadline(Duration deadline) {
        var defaults = TestSettings.defaults();
        return new PlacementSettings(new PlacementSettings.Redis(Duration.ofSeconds(60), deadline, Duration.ofMillis(100)),
                defaults.groupCommit(), defaults.outage(), defaults.inDoubt(), defaults.overload(), defaults.dbLock());
    }
}
