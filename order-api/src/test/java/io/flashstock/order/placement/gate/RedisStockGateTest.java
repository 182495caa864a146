package io.flashstock.order.placement.gate;

import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.PlacementSettings;
import io.flashstock.order.placement.core.TestSettings;
import io.flashstock.order.stock.StockSettings;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.refusal.Refusal;
import io.lettuce.core.RedisCommandExecutionException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * The Redis gate's take, with Redis mocked: a take refused while its slot moves is sent again within its budget,
 * then answered 503.
 */
class RedisStockGateTest {

    private final StringRedisTemplate redis = mock(StringRedisTemplate.class);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final RedisStockGate gate = gate(Duration.ofSeconds(30));

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
                .isInstanceOfSatisfying(RefusedException.class, problem -> assertThat(problem.refusal())
                        .isEqualTo(Refusal.REDIS_UNAVAILABLE))
                .hasMessageContaining("being moved");

        // 10 + 15 + 22.5 + 33.75 ms of pauses fit in the 100 ms budget: 5 attempts
        verify(redis, times(5)).execute(any(RedisScript.class), anyList(), any(Object[].class));
        assertThat(meters.counter("flashstock.redis.tryagain", "outcome", "refused").count()).isEqualTo(1);
    }

    private static RedisSystemException tryAgain() {
        return new RedisSystemException("Error in execution", new RedisCommandExecutionException(
                "TRYAGAIN Multiple keys request during rehashing of slot"));
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
