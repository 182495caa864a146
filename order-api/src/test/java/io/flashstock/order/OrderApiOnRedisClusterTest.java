package io.flashstock.order;

import io.flashstock.testsupport.PrivateStack;
import org.junit.jupiter.api.AfterAll;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * {@link OrderApiIntegrationTest} on a Redis Cluster of the test class's own (scripts/stack's cluster topology: 3
 * primaries, 3 replicas, node timeout 3 s), which it may fail over, migrate or stop: order-api is given
 * {@code spring.data.redis.cluster.nodes}, the database and Kafka stay the shared ones. The context is closed
 * with the class, before its cluster stops.
 */
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
public abstract class OrderApiOnRedisClusterTest extends OrderApiIntegrationTest {

    protected static PrivateStack cluster;
    protected static RedisClusterNodes nodes;

    /** The shared database and Kafka, and a fresh Redis Cluster; call from a {@code @DynamicPropertySource}. */
    protected static void clusterInfrastructure(DynamicPropertyRegistry registry, String prefix) {
        sharedInfrastructure(registry, prefix);
        cluster = PrivateStack.cluster(prefix).start("redis");
        nodes = new RedisClusterNodes(cluster);
        String clusterNodes = cluster.redisClusterNodes();
        registry.add("spring.data.redis.cluster.nodes", () -> clusterNodes);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }
}
