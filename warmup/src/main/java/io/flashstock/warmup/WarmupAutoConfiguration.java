package io.flashstock.warmup;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Registers the JIT warm-up in a web application that provides a {@link WarmupFixture}.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@EnableConfigurationProperties(WarmupProperties.class)
public class WarmupAutoConfiguration {

    @Bean
    WarmupTicket warmupTicket() {
        return new WarmupTicket();
    }

    @Bean
    @ConditionalOnBean(WarmupFixture.class)
    JitWarmup jitWarmup(WarmupProperties properties, WarmupFixture fixture, WarmupTicket ticket,
                        WebServerApplicationContext context, ObjectProvider<MeterRegistry> meters) {
        return new JitWarmup(properties, fixture, ticket, context, meters.getIfAvailable(SimpleMeterRegistry::new));
    }
}
