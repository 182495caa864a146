package io.flashstock.stock.retention;

import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

import java.time.Duration;

@Configuration(proxyBeanMethods = false)
@EnableScheduling
class RetentionScheduling implements SchedulingConfigurer {

    private final ProcessedEventRetention retention;
    private final RetentionSettings properties;

    RetentionScheduling(ProcessedEventRetention retention, RetentionSettings properties) {
        this.retention = retention;
        this.properties = properties;
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar registrar) {
        registrar.addFixedDelayTask(new FixedDelayTask(retention::prune, properties.interval(), Duration.ZERO));
    }
}
