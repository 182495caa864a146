package io.flashstock.warmup;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;
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

    /** The JVM's exit with the application's exit code: the training run's end (flashstock.warmup.exit-after). */
    @Bean
    @ConditionalOnMissingBean
    WarmupExit warmupExit(ApplicationContext context) {
        return report -> System.exit(SpringApplication.exit(context, () -> report.succeeded() > 0 ? 0 : 1));
    }

    @Bean
    @ConditionalOnBean(WarmupFixture.class)
    JitWarmup jitWarmup(WarmupProperties properties, WarmupFixture fixture, WarmupTicket ticket,
                        WebServerApplicationContext context, ObjectProvider<MeterRegistry> meters, WarmupExit exit) {
        return new JitWarmup(properties, fixture, ticket, context, meters.getIfAvailable(SimpleMeterRegistry::new),
                exit);
    }
}
