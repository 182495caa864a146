package io.flashstock.stock.locking;

import io.flashstock.testsupport.PrivateStack;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The item locks on a Redis Cluster (scripts/stack's cluster topology, 3 primaries and 3 replicas): with
 * {@code spring.data.redis.cluster.nodes} set, each item's lock is taken on the primary of its slot, whichever
 * shard that is.
 */
class ItemLocksOnRedisClusterIT {

    private static PrivateStack stack;

    @BeforeAll
    static void startCluster() {
        stack = PrivateStack.cluster("item-locks").start("redis");
    }

    @AfterAll
    static void stopCluster() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void theLocksOfItemsOnEveryShardAreTakenAndReleased() {
        List<String> items = IntStream.range(0, 12).mapToObj(n -> "cluster-lock-" + n).toList();
        new ApplicationContextRunner()
                .withUserConfiguration(ItemLockConfiguration.class, Meters.class)
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + stack.redisPort(),
                        "spring.data.redis.cluster.nodes=" + stack.redisClusterNodes())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RedissonClient redisson = context.getBean(RedissonClient.class);
                    assertThat(items.stream().map(item -> shardOf(redisson.getKeys()
                            .getSlot(RedissonItemLocks.lockKey(item)))).collect(Collectors.toSet()))
                            .as("the items' locks fall on all three primaries").containsExactlyInAnyOrder(0, 1, 2);

                    Set<String> lockedInside = context.getBean(ItemLocks.class).callLocked(items, () -> items.stream()
                            .filter(item -> redisson.getLock(RedissonItemLocks.lockKey(item)).isLocked())
                            .collect(Collectors.toSet()));

                    assertThat(lockedInside).containsExactlyInAnyOrderElementsOf(items);
                    assertThat(items).noneMatch(item -> redisson.getLock(RedissonItemLocks.lockKey(item)).isLocked());
                });
    }

    /** The shard of a slot, as {@code redis-cli --cluster create} splits the slots over three primaries. */
    private static int shardOf(int slot) {
        return slot <= 5460 ? 0 : slot <= 10922 ? 1 : 2;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(LockSettings.class)
    static class Meters {

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }
}
