package io.flashstock.order.config;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The Redis gate's client. Lettuce multiplexes every command over one shared connection, so its thread pools and
 * {@code spring.data.redis.timeout} are its only throughput knobs. The gate's own keys of
 * {@code flashstock.order.redis} are the placement's ({@code PlacementSettings.Redis}).
 *
 * @param ioThreads Netty I/O threads; 0 keeps Lettuce's default (one per core, at least 2)
 * @param computationThreads threads completing futures; 0 keeps Lettuce's default (one per core, at least 2)
 */
@ConfigurationProperties("flashstock.order.redis")
public record RedisClientSettings(@DefaultValue("0") int ioThreads, @DefaultValue("0") int computationThreads) {
}
