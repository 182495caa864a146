package io.flashstock.warmup;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An AOT training run's warm-up ({@code flashstock.warmup.exit-after}): the process is ended once the warm-up's
 * orders are placed and cleaned up, so the JVM exits with the order path's profiles recorded.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = WarmupExitTest.App.class,
        properties = {"flashstock.warmup.requests=12", "flashstock.warmup.exit-after=true",
                "flashstock.warmup.request-timeout=60s", "flashstock.warmup.deadline=5m"})
class WarmupExitTest {

    @Autowired
    App app;

    @Test
    void endsTheProcessAfterTheWarmUpAndItsCleanUp() {
        assertThat(app.events).containsExactly("prepare", "cleanUp", "exit after 12 orders");
    }

    @SpringBootApplication
    static class App {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Bean
        WarmupFixture recordingFixture() {
            return new WarmupFixture() {
                @Override
                public void prepare(String itemCode, long units) {
                    events.add("prepare");
                }

                @Override
                public long cleanUp(String itemCode) {
                    events.add("cleanUp");
                    return 0;
                }
            };
        }

        /** Stands in for the JVM's exit, which would end the test run. */
        @Bean
        WarmupExit recordingExit() {
            return report -> events.add("exit after " + report.succeeded() + " orders");
        }

        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    @RestController
    static class Orders {
        @PostMapping("/order/stock/limit")
        ResponseEntity<Map<String, Object>> order() {
            return ResponseEntity.ok(Map.of("orderCode", "x"));
        }
    }
}
