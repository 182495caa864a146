package io.flashstock.stock;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;

import java.time.Clock;

@SpringBootApplication
@ConfigurationPropertiesScan
public class StockConsumerApplication {

    public static void main(String[] args) {
        SpringApplication.run(StockConsumerApplication.class, args);
    }

    /**
     * Wall-clock time: the dedupe window of a batch, how far ahead of it events are stamped, the processed and
     * recorded times of the ledger, the event latency and the retention cut-off. Durations are measured with
     * {@code System.nanoTime}.
     */
    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
