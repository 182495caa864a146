package io.flashstock.order.ratelimit;

import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.BucketExceptions;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
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

    /** Addresses whose bucket object is kept; one seen again after it is dropped gets a new object, same bucket. */
    private static final int ADDRESSES_KEPT = 10_000;

    private final String endpoint;
    private final ProxyManager<byte[]> buckets;
    private final BucketConfiguration limit;
    private final Counter refused;
    /**
     * One bucket object per address, with Bucket4j's batching: the requests of one address in flight at once are
     * combined into one compare-and-swap, instead of racing one another's until Bucket4j's timeout (a flood of
     * 5,000 entries from 64 connections had 13 answered 500 that way).
     */
    private final Cache<String, AddressBucket> byAddress = Caffeine.newBuilder().maximumSize(ADDRESSES_KEPT)
            .expireAfterAccess(Duration.ofMinutes(1)).build();

    /**
     * An address's bucket, and until when it is known to be empty: what a refusal said it must wait. Meanwhile its
     * requests are refused here without asking Redis, exactly: no order-api can add a token before then, only take
     * them. A flood from one address costs Redis one compare-and-swap per token, not one per request (through
     * Redis, a one-address flood of 64 connections was answered at ~150 requests a second).
     */
    private static final class AddressBucket {
        private final Bucket bucket;
        private volatile long emptyUntilNanos = System.nanoTime();

        AddressBucket(Bucket bucket) {
            this.bucket = bucket;
        }
    }

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
        AddressBucket address = byAddress.get(ClientAddress.of(request.getRemoteAddr()), client ->
                new AddressBucket(buckets.builder().withOptimization(Optimizations.batching())
                        .build(("rate:" + endpoint + ":" + client).getBytes(StandardCharsets.UTF_8), () -> limit)));
        long now = System.nanoTime();
        if (address.emptyUntilNanos - now > 0) {
            throw refuse(address.emptyUntilNanos - now);
        }
        ConsumptionProbe probe;
        try {
            probe = address.bucket.tryConsumeAndReturnRemaining(1);
        } catch (RedisException | BucketExceptions.BucketExecutionException e) {
            throw new RefusedException(Refusal.REDIS_UNAVAILABLE, "the rate limit (Redis) did not answer", e);
        }
        if (probe.isConsumed()) {
            return true;
        }
        address.emptyUntilNanos = now + probe.getNanosToWaitForRefill();
        throw refuse(probe.getNanosToWaitForRefill());
    }

    private RefusedException refuse(long waitNanos) {
        refused.increment();
        return new RefusedException(Refusal.RATE_LIMITED, "too many requests from this address; nothing was "
                + "stored: retry after the seconds of Retry-After").retryAfter(Duration.ofNanos(waitNanos));
    }
}
