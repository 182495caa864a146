package io.flashstock.order;

import io.flashstock.warmup.WarmupProperties;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.scheduling.annotation.EnableScheduling;

@SpringBootApplication
@ConfigurationPropertiesScan
// the warm-up item's orders are marked WARMUP, whether or not the warm-up runs
@EnableConfigurationProperties(WarmupProperties.class)
// orders whose commit is in doubt are looked up again on a schedule
@EnableScheduling
public class OrderApiApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrderApiApplication.class, args);
    }
}
