package io.flashstock.order.ratelimit;

import io.github.bucket4j.redis.lettuce.RedisApi;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Bucket4j's commands on a connection of their own, opened on first use from the Lettuce client Spring Boot made
 * (its address, timeout and fail-fast options), so that order-api starts whether or not Redis is up, as it does
 * without a rate limit. Lettuce reconnects it by itself. Generic in the key type only because Bucket4j passes its keys
 * as an {@code Object[]}: a method declared for {@code byte[][]} would fail its cast; the keys are bytes.
 *
 * @param <K> {@code byte[]}
 */
final class RateLimitRedis<K> implements RedisApi<K>, AutoCloseable {

    private final LettuceConnectionFactory factory;
    private volatile StatefulConnection<K, byte[]> connection;

    RateLimitRedis(LettuceConnectionFactory factory) {
        this.factory = factory;
    }

    @Override
    public <V> RedisFuture<V> eval(String script, ScriptOutputType type, K[] keys, byte[]... args) {
        return commands().eval(script, type, keys, args);
    }

    @Override
    public RedisFuture<byte[]> get(K key) {
        return commands().get(key);
    }

    @Override
    @SuppressWarnings("unchecked")
    public RedisFuture<?> delete(K key) {
        return commands().del(key);
    }

    @SuppressWarnings("unchecked")
    private RedisClusterAsyncCommands<K, byte[]> commands() {
        StatefulConnection<K, byte[]> open = connection;
        if (open == null) {
            synchronized (this) {
                if (connection == null) {
                    connection = (StatefulConnection<K, byte[]>) connect(factory.getRequiredNativeClient());
                }
                open = connection;
            }
        }
        return open instanceof StatefulRedisClusterConnection<?, ?> cluster
                ? ((StatefulRedisClusterConnection<K, byte[]>) cluster).async()
                : ((StatefulRedisConnection<K, byte[]>) open).async();
    }

    private static StatefulConnection<byte[], byte[]> connect(AbstractRedisClient client) {
        return client instanceof RedisClusterClient cluster ? cluster.connect(ByteArrayCodec.INSTANCE)
                : ((RedisClient) client).connect(ByteArrayCodec.INSTANCE);
    }

    @Override
    public synchronized void close() {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }
}
