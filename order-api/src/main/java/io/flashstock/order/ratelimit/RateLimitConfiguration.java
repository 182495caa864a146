package io.flashstock.order.ratelimit;

import io.flashstock.order.placement.core.GateEndpoints;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import java.time.Duration;
import java.util.Map;

/**
 * The rate limit of {@link RateLimitSettings} on waiting-room entries and token issues, each endpoint a bucket per
 * address of its own; {@code flashstock.rate.limited{endpoint}} counts the refusals.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "flashstock.rate-limit.enabled", matchIfMissing = true)
class RateLimitConfiguration {

    /** The endpoints limited, by the name their buckets and refusals carry. */
    private static final Map<String, String> ENDPOINTS = Map.of(
            "queue-entry", GateEndpoints.QUEUE,
            "token-issue", GateEndpoints.TOKEN);

    @Bean
    RateLimitRedis<byte[]> rateLimitRedis(LettuceConnectionFactory redis) {
        return new RateLimitRedis<>(redis);
    }

    /**
     * A bucket is kept until it would be full again, then Redis forgets it: the keys are those of the addresses seen
     * within the last refill time (10 s by default), not of all time.
     */
    @Bean
    ProxyManager<byte[]> rateLimitBuckets(RateLimitRedis<byte[]> rateLimitRedis, LettuceConnectionFactory redis) {
        return new Bucket4jLettuce.LettuceBasedProxyManagerBuilder<>(rateLimitRedis)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ZERO))
                .requestTimeout(Duration.ofMillis(redis.getTimeout()))
                .build();
    }

    @Bean
    WebMvcConfigurer rateLimitedEndpoints(ProxyManager<byte[]> rateLimitBuckets, RateLimitSettings settings,
                                          MeterRegistry meters) {
        var limit = BucketConfiguration.builder().addLimit(bandwidth -> bandwidth.capacity(settings.burst())
                .refillGreedy(settings.perMinute(), Duration.ofMinutes(1))).build();
        return new WebMvcConfigurer() {
            @Override
            public void addInterceptors(InterceptorRegistry registry) {
                ENDPOINTS.forEach((endpoint, path) -> registry.addInterceptor(new ClientRateLimit(endpoint,
                        rateLimitBuckets, limit, Counter.builder("flashstock.rate.limited").tag("endpoint", endpoint)
                        .description("Requests refused by the rate limit per client address").register(meters)))
                        .addPathPatterns(path));
            }
        };
    }
}
