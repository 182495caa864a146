package io.flashstock.order.ratelimit;

import io.flashstock.order.web.ProblemException;
import io.flashstock.order.web.ProblemType;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.lettuce.core.RedisException;
import io.micrometer.core.instrument.Counter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.servlet.HandlerInterceptor;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One endpoint's rate limit: each POST takes a token from its client address's bucket ({@code rate:{endpoint}:{address}}
 * in Redis, Bucket4j's compare-and-swap), before its body is read; with none left it is refused, 429
 * {@code RATE_LIMITED} with {@code Retry-After} (when the next token comes), having changed nothing.
 */
final class ClientRateLimit implements HandlerInterceptor {

    private final String endpoint;
    private final ProxyManager<byte[]> buckets;
    private final BucketConfiguration limit;
    private final Counter refused;

    ClientRateLimit(String endpoint, ProxyManager<byte[]> buckets, BucketConfiguration limit, Counter refused) {
        this.endpoint = endpoint;
        this.buckets = buckets;
        this.limit = limit;
        this.refused = refused;
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        if (!"POST".equals(request.getMethod())) {
            return true;
        }
        String client = ClientAddress.of(request.getRemoteAddr());
        byte[] key = ("rate:" + endpoint + ":" + client).getBytes(StandardCharsets.UTF_8);
        ConsumptionProbe probe;
        try {
            probe = buckets.builder().build(key, () -> limit).tryConsumeAndReturnRemaining(1);
        } catch (RedisException e) {
            throw new ProblemException(ProblemType.REDIS_UNAVAILABLE, "the rate limit (Redis) did not answer", e);
        }
        if (probe.isConsumed()) {
            return true;
        }
        refused.increment();
        throw new ProblemException(ProblemType.RATE_LIMITED, "too many requests from this address; nothing was "
                + "stored: retry after the seconds of Retry-After")
                .retryAfter(Duration.ofNanos(probe.getNanosToWaitForRefill()));
    }
}
