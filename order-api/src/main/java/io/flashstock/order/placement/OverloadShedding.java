package io.flashstock.order.placement;

import io.flashstock.order.config.OrderSettings;
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
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Sheds the Redis gate's orders past capacity ({@link OrderSettings.Overload}): a request that finds no slot within
 * {@code max-wait} is answered 503 {@code OVERLOADED} with {@code Retry-After}, unread, before it takes stock, at
 * a fraction of an order's cost. A Resilience4j semaphore bulkhead; its {@code resilience4j.bulkhead.*} meters show
 * the orders in flight.
 */
final class OverloadShedding extends OncePerRequestFilter {

    private final Bulkhead inFlight;
    private final OrderMetrics.Outcomes outcomes;
    private final byte[] refusal;

    OverloadShedding(OrderSettings settings, OrderMetrics metrics, JsonMapper json, MeterRegistry meters) {
        var overload = settings.overload();
        var bulkheads = BulkheadRegistry.of(BulkheadConfig.custom()
                .maxConcurrentCalls(overload.maxInFlight()).maxWaitDuration(overload.maxWait()).build());
        this.inFlight = bulkheads.bulkhead("orders");
        TaggedBulkheadMetrics.ofBulkheadRegistry(bulkheads).bindTo(meters);
        this.outcomes = metrics.of(Gate.REDIS);
        this.refusal = json.writeValueAsBytes(problem(overload.maxInFlight()));
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
    private static Map<String, Object> problem(int maxInFlight) {
        ProblemType type = ProblemType.OVERLOADED;
        var problem = new LinkedHashMap<String, Object>();
        problem.put("type", type.type().toString());
        problem.put("title", type.title());
        problem.put("status", type.status().value());
        problem.put("detail", "the engine is handling " + maxInFlight + " orders already; nothing was read or sold: "
                + "retry after the seconds of Retry-After");
        problem.put("instance", OrderController.PATH);
        problem.put("code", type.code());
        return problem;
    }

    /** Only when a bound is set: {@code max-in-flight} 0 (the default) leaves the endpoint unbounded. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnExpression("${flashstock.order.overload.max-in-flight:0} > 0")
    static class Registration {

        /** Right after {@link EndpointLatency}, so that refusals are timed too. */
        @Bean
        FilterRegistrationBean<OverloadShedding> overloadShedding(OrderSettings settings, OrderMetrics metrics,
                                                                 JsonMapper json, MeterRegistry meters) {
            var registration = new FilterRegistrationBean<>(new OverloadShedding(settings, metrics, json, meters));
            registration.addUrlPatterns(OrderController.PATH);
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
            return registration;
        }
    }
}
