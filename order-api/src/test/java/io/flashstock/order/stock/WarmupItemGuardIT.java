package io.flashstock.order.stock;

import io.flashstock.order.OrderApiApplication;
import io.flashstock.order.OrderApiIntegrationTest;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** An order-api whose warm-up item code is a real item's refuses to start, and leaves that item as it was. */
class WarmupItemGuardIT extends OrderApiIntegrationTest {

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "warmupguard");
    }

    @Autowired
    private Environment environment;

    @Test
    void aWarmupItemCodeThatIsARealItemStopsTheStartAndTouchesNothingOfTheItem() {
        String item = uniqueItem("real");
        setStock(item, 10, null);
        assertThat(api().order(item, "ann", 2).status()).isEqualTo(200);
        assertThat(api().order(item, "bob", 3).status()).isEqualTo(200);

        assertThatThrownBy(() -> anotherOrderApiWarmingUpOn(item).close())
                .hasStackTraceContaining("flashstock.warmup.item-code '" + item + "' is a real item");

        assertThat(orderCount(item)).isEqualTo(2);
        assertThat(orderedQuantity(item)).isEqualTo(5);
        assertThat(redisCounter(item)).isEqualTo(5);
        assertThat(api().order(item, "cid", 1).status()).isEqualTo(200);
    }

    /** A second order-api on the same database and Redis, which warms up on {@code itemCode}. */
    private AutoCloseable anotherOrderApiWarmingUpOn(String itemCode) {
        var arguments = new ArrayList<String>();
        for (String name : List.of("spring.datasource.url", "spring.datasource.username", "spring.datasource.password",
                "spring.data.redis.host", "spring.data.redis.port", "spring.kafka.bootstrap-servers",
                "flashstock.admin.token")) {
            arguments.add("--" + name + "=" + environment.getRequiredProperty(name));
        }
        arguments.addAll(List.of("--flashstock.warmup.item-code=" + itemCode, "--flashstock.warmup.enabled=true",
                "--flashstock.warmup.requests=5", "--server.port=0"));
        return new SpringApplicationBuilder(OrderApiApplication.class).run(arguments.toArray(String[]::new));
    }
}
