package io.flashstock.order.placement;

import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.web.SingleIdempotencyKey;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** The order endpoints take one {@code Idempotency-Key} line at most. */
@Configuration(proxyBeanMethods = false)
class OrderWebConfiguration implements WebMvcConfigurer {

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new SingleIdempotencyKey())
                .addPathPatterns(GateEndpoints.REDIS, GateEndpoints.DB_LOCK);
    }
}
