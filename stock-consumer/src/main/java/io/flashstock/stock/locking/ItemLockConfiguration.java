package io.flashstock.stock.locking;

import io.micrometer.core.instrument.MeterRegistry;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;
import org.redisson.config.SubscriptionMode;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.StringUtils;

@Configuration(proxyBeanMethods = false)
class ItemLockConfiguration {

    /**
     * Only lock mode {@code redisson} needs Redis; it uses the same connection settings as Spring Data Redis: with
     * {@code spring.data.redis.cluster.nodes} set, a Redis Cluster (each item's lock on the primary of its slot,
     * the topology rescanned every 5 s, so a promoted replica is followed), else the one server of host and port.
     */
    @Bean(destroyMethod = "shutdown")
    @ConditionalOnProperty(name = "flashstock.lock.mode", havingValue = "redisson", matchIfMissing = true)
    RedissonClient redissonClient(LockSettings properties,
                                  @Value("${spring.data.redis.host}") String host,
                                  @Value("${spring.data.redis.port}") int port,
                                  @Value("${spring.data.redis.password:}") String password,
                                  @Value("${spring.data.redis.cluster.nodes:}") String clusterNodes) {
        var config = new Config();
        if (StringUtils.hasText(clusterNodes)) {
            // locks are written, never read from a replica: no connections to the replicas at all
            var cluster = config.useClusterServers()
                    .setReadMode(ReadMode.MASTER)
                    .setSubscriptionMode(SubscriptionMode.MASTER)
                    .setMasterConnectionPoolSize(properties.connectionPoolSize())
                    .setMasterConnectionMinimumIdleSize(properties.connectionMinimumIdleSize());
            for (String node : StringUtils.commaDelimitedListToStringArray(clusterNodes)) {
                cluster.addNodeAddress("redis://" + node.trim());
            }
            if (StringUtils.hasText(password)) {
                cluster.setPassword(password);
            }
            return Redisson.create(config);
        }
        var server = config.useSingleServer()
                .setAddress("redis://" + host + ":" + port)
                .setConnectionPoolSize(properties.connectionPoolSize())
                .setConnectionMinimumIdleSize(properties.connectionMinimumIdleSize());
        if (StringUtils.hasText(password)) {
            server.setPassword(password);
        }
        return Redisson.create(config);
    }

    @Bean
    ItemLocks itemLocks(LockSettings properties, ObjectProvider<RedissonClient> redisson, MeterRegistry registry) {
        if (properties.mode() == LockMode.NONE) {
            return new UnlockedItems();
        }
        return new RedissonItemLocks(redisson.getObject(), properties, registry);
    }
}
