package io.flashstock.warmup;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The warm-up against a stand-in order endpoint: readiness is refused while it runs, liveness is not,
 * only 200 answers count, and the fixture is prepared and cleaned up.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = JitWarmupTest.App.class,
        properties = {"flashstock.warmup.requests=40", "flashstock.warmup.concurrency=3",
                "flashstock.warmup.item-code=warm-item",
                // a starved box must not turn a slow 200 into a time-out: only the stand-in's 400s may fail
                "flashstock.warmup.request-timeout=60s", "flashstock.warmup.deadline=5m"})
class JitWarmupTest {

    @Autowired
    JitWarmup warmup;

    @Autowired
    RecordingFixture fixture;

    @Autowired
    StandInOrders orders;

    @Autowired
    ApplicationAvailability availability;

    @Test
    void warmsUpWithRealOrdersWhileReadinessIsRefused() {
        WarmupReport report = warmup.lastReport();

        assertThat(report.succeeded()).isEqualTo(40);
        assertThat(report.failed()).isEqualTo(StandInOrders.REJECTED_FIRST);
        assertThat(report.deadlineReached()).isFalse();
        assertThat(orders.readinessSeen).hasSizeGreaterThanOrEqualTo(40 + StandInOrders.REJECTED_FIRST)
                .containsOnly(ReadinessState.REFUSING_TRAFFIC);
        assertThat(orders.livenessSeen).containsOnly(LivenessState.CORRECT);
        assertThat(orders.itemCodes).containsOnly("warm-item");
        assertThat(availability.getReadinessState()).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
    }

    @Test
    void preparesTheDedicatedItemAndCleansItUp() {
        assertThat(fixture.prepared).containsExactly("warm-item:80");
        assertThat(fixture.cleanedUp).containsExactly("warm-item");
    }

    @SpringBootApplication
    static class App {

        @Bean
        RecordingFixture recordingFixture() {
            return new RecordingFixture();
        }

        @Bean
        StandInOrders standInOrders(ApplicationAvailability availability) {
            return new StandInOrders(availability);
        }
    }

    static class RecordingFixture implements WarmupFixture {
        final List<String> prepared = new CopyOnWriteArrayList<>();
        final List<String> cleanedUp = new CopyOnWriteArrayList<>();

        @Override
        public void prepare(String itemCode, long units) {
            prepared.add(itemCode + ":" + units);
        }

        @Override
        public long cleanUp(String itemCode) {
            cleanedUp.add(itemCode);
            return 0;
        }
    }

    /** Answers 400 to the first few orders, then 200: the 400s must not count as warm-up. */
    @RestController
    static class StandInOrders {
        static final int REJECTED_FIRST = 5;
        final List<ReadinessState> readinessSeen = new CopyOnWriteArrayList<>();
        final List<LivenessState> livenessSeen = new CopyOnWriteArrayList<>();
        final List<Object> itemCodes = new CopyOnWriteArrayList<>();
        private final AtomicInteger calls = new AtomicInteger();
        private final ApplicationAvailability availability;

        StandInOrders(ApplicationAvailability availability) {
            this.availability = availability;
        }

        @PostMapping("/order/stock/limit")
        ResponseEntity<Map<String, Object>> order(@RequestBody Map<String, Object> body) {
            readinessSeen.add(availability.getReadinessState());
            livenessSeen.add(availability.getLivenessState());
            itemCodes.add(body.get("itemCode"));
            if (calls.incrementAndGet() <= REJECTED_FIRST) {
                return ResponseEntity.badRequest().build();
            }
            return ResponseEntity.ok(Map.of("orderCode", "x"));
        }
    }
}
