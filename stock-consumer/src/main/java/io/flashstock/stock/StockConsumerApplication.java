package io.flashstock.stock;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
public class StockConsumerApplication {

    public static void main(String[] args) {
        SpringApplication.run(StockConsumerApplication.class, args);
    }
}
