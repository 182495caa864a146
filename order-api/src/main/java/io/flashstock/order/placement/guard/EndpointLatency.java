package io.flashstock.order.placement.guard;

import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.stock.Gate;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code flashstock.order.latency{gate}}: the order endpoints' own latency histogram, from the request's
 * arrival in the servlet container to the end of its answer, whatever the answer. It stands in for Spring's
 * {@code http.server.requests} observation, which is switched off: that one builds an observation context and
 * its key-values for every request of every endpoint, a measured share of order-api's CPU per order
 * (docs/performance.md), where one timer per order endpoint is what a user of the engine reads.
 */
@Configuration(proxyBeanMethods = false)
class EndpointLatency {

    @Bean
    FilterRegistrationBean<OncePerRequestFilter> orderLatency(MeterRegistry registry) {
        Map<Gate, Timer> timers = new EnumMap<>(Gate.class);
        for (Gate gate : Gate.values()) {
            timers.put(gate, Timer.builder("flashstock.order.latency").tag("gate", gate.code())
                    .description("The order endpoint's latency, arrival to answer, as the server saw it")
                    .publishPercentileHistogram().register(registry));
        }
        var filter = new OncePerRequestFilter() {
            @Override
            protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response,
                                            FilterChain chain) throws ServletException, IOException {
                long start = System.nanoTime();
                try {
                    chain.doFilter(request, response);
                } finally {
                    GateEndpoints.gateOf(request.getRequestURI()).map(timers::get)
                            .ifPresent(timer -> timer.record(System.nanoTime() - start, TimeUnit.NANOSECONDS));
                }
            }
        };
        var registration = new FilterRegistrationBean<OncePerRequestFilter>(filter);
        registration.addUrlPatterns(GateEndpoints.REDIS, GateEndpoints.DB_LOCK);
        // first, so that the body limit's and the JSON rules' refusals are timed too
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }
}
