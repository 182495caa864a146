package io.flashstock.order.dashboard;

import io.flashstock.order.RedisClusterNodes;
import io.flashstock.testsupport.PrivateStack;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** The dashboard's Redis figures on a Redis Cluster: every node's, and their sum. */
class RedisStatsOnRedisClusterIT {

    private static PrivateStack stack;

    @BeforeAll
    static void startCluster() {
        stack = PrivateStack.cluster("redis-stats").start("redis");
    }

    @AfterAll
    static void stopCluster() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void theMemoryAndCpuOfEveryNodeAreReadAndSummed() {
        var factory = new LettuceConnectionFactory(
                new RedisClusterConfiguration(Arrays.asList(stack.redisClusterNodes().split(","))));
        factory.afterPropertiesSet();
        factory.start();
        try {
            var nodes = new RedisClusterNodes(stack);
            long usedMemory = nodes.ports().stream()
                    .mapToLong(port -> Long.parseLong(nodes.info(port, "memory").getProperty("used_memory"))).sum();

            var reading = new RedisStats(new StringRedisTemplate(factory)).read();

            assertThat(reading.problem()).isNull();
            // each node's memory moves a little between the two readings
            assertThat(reading.memoryBytes()).as("the six nodes' used_memory")
                    .isBetween(usedMemory * 9 / 10, usedMemory * 11 / 10);
            assertThat(reading.cpuSeconds()).isPositive();
            assertThat(reading.nodes()).as("every node, by address and role").hasSize(6)
                    .allSatisfy(node -> assertThat(node.memoryBytes()).isPositive());
            assertThat(reading.nodes()).extracting(RedisStats.NodeReading::role)
                    .containsExactlyInAnyOrder("primary", "primary", "primary", "replica", "replica", "replica");
        } finally {
            factory.destroy();
        }
    }
}
