package io.flashstock.order.placement.guard;

import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.placement.core.OrderMetrics;
import io.flashstock.order.placement.core.PlacementSettings;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.web.ProblemType;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedBulkheadMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Bounds one order endpoint's requests in flight: a request that finds no slot within its wait is answered 503
 * {@code OVERLOADED} with {@code Retry-After}, unread, before it takes stock, at a fraction of an order's cost. A
 * Resilience4j semaphore bulkhead per endpoint; its {@code resilience4j.bulkhead.*} meters show the requests in
 * flight. The Redis gate's bound is load shedding, opt-in ({@link PlacementSettings.Overload}); the DB-lock baseline's
 * is always on ({@link PlacementSettings.DbLock}): its orders hold a server thread while they queue on their row, and
 * unbounded they could take every thread the engine's orders need.
 */
final class OverloadShedding extends OncePerRequestFilter {

    private final Gate gate;
    private final Bulkhead inFlight;
    private final OrderMetrics.Outcomes outcomes;
    private final byte[] refusal;

    OverloadShedding(Gate gate, int maxInFlight, Duration maxWait, OrderMetrics metrics, JsonMapper json,
                     MeterRegistry meters) {
        this.gate = gate;
        var bulkheads = BulkheadRegistry.of(BulkheadConfig.custom()
                .maxConcurrentCalls(maxInFlight).maxWaitDuration(maxWait).build());
        this.inFlight = bulkheads.bulkhead(gate.code());
        TaggedBulkheadMetrics.ofBulkheadRegistry(bulkheads).bindTo(meters);
        this.outcomes = metrics.of(gate);
        this.refusal = json.writeValueAsBytes(problem(gate, maxInFlight));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!inFlight.tryAcquirePermission()) {
            refuse(response);
            return;
        }
        try {
            chain.doFilter(request, response);
        } finally {
            inFlight.onComplete();
        }
    }

    private void refuse(HttpServletResponse response) throws IOException {
        outcomes.overloaded();
        response.setStatus(ProblemType.OVERLOADED.status().value());
        response.setHeader(HttpHeaders.RETRY_AFTER, "1");
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setContentLength(refusal.length);
        response.getOutputStream().write(refusal);
    }

    /** The problem every refusal answers; the same fields as the engine's other problems. */
    private static Map<String, Object> problem(Gate gate, int maxInFlight) {
        ProblemType type = ProblemType.OVERLOADED;
        var problem = new LinkedHashMap<String, Object>();
        problem.put("type", type.type().toString());
        problem.put("title", type.title());
        problem.put("status", type.status().value());
        problem.put("detail", "this endpoint is handling " + maxInFlight + " orders already; nothing was read or sold: "
                + "retry after the seconds of Retry-After");
        problem.put("instance", GateEndpoints.pathOf(gate));
        problem.put("code", type.code());
        return problem;
    }

    /** Only when a bound is set: {@code max-in-flight} 0 (the default) leaves the endpoint unbounded. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnExpression("${flashstock.order.overload.max-in-flight:0} > 0")
    static class RedisGateBound {

        /** Right after {@link EndpointLatency}, so that refusals are timed too. */
        @Bean
        FilterRegistrationBean<OverloadShedding> redisGateBound(PlacementSettings settings, OrderMetrics metrics,
                                                               JsonMapper json, MeterRegistry meters) {
            var overload = settings.overload();
            return registration(new OverloadShedding(Gate.REDIS, overload.maxInFlight(), overload.maxWait(), metrics,
                    json, meters));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class DbLockBound {

        @Bean
        FilterRegistrationBean<OverloadShedding> dbLockBound(PlacementSettings settings, OrderMetrics metrics,
                                                            JsonMapper json, MeterRegistry meters) {
            return registration(new OverloadShedding(Gate.DB_LOCK, settings.dbLock().maxInFlight(), Duration.ZERO,
                    metrics, json, meters));
        }
    }

    private static FilterRegistrationBean<OverloadShedding> registration(OverloadShedding filter) {
        var registration = new FilterRegistrationBean<>(filter);
        registration.addUrlPatterns(GateEndpoints.pathOf(filter.gate));
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
        return registration;
    }
}
