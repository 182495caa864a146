package io.flashstock.order.queue;

import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiApplication;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.stock.Gate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two order-apis on the same Redis and database, each running the admission scheduler: users enter, poll and
 * order through either. The scheduler admits each tick once across both, and no unit is sold twice.
 */
class QueueTwoInstancesIT extends OrderApiIntegrationTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final int PER_TICK = 5;
    private static final Duration TICK = Duration.ofMillis(100);

    private static ConfigurableApplicationContext other;

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "queue2");
        registry.add("flashstock.queue.admit-per-tick", () -> Integer.toString(PER_TICK));
        registry.add("flashstock.queue.tick", () -> TICK.toMillis() + "ms");
    }

    @Autowired
    private Environment environment;
    @Autowired
    private AdmissionScheduler scheduler;

    private ApiClient otherApi;

    @BeforeEach
    void startTheOther() {
        if (other == null) {
            other = anotherOrderApi();
        }
        otherApi = new ApiClient(other.getEnvironment().getRequiredProperty("local.server.port", Integer.class));
    }

    @AfterAll
    static void stopTheOther() {
        if (other != null) {
            other.close();
            other = null;
        }
    }

    @Test
    void demandAboveTheStockSellsExactlyTheStockThroughBothInstances() throws Exception {
        String item = uniqueItem("q-two");
        setStock(item, 100, null, Gate.QUEUE);
        int users = 160;
        // user → the end of their admission, which is the same for every ticket one tick admitted
        var admittedUntil = new ConcurrentHashMap<Integer, Instant>();
        var refusedOrders = new ConcurrentHashMap<Integer, ApiClient.Answer>();
        var answers = concurrently(32, users, n -> {
            // in through one instance, polled and ordered through the other
            ApiClient in = n % 2 == 0 ? api() : otherApi;
            ApiClient out = n % 2 == 0 ? otherApi : api();
            var entered = in.post(GateEndpoints.QUEUE, ApiClient.orderJson(item, "user-" + n, 1));
            if (entered.status() != 201) {
                return entered;
            }
            String ticket = entered.json().path("ticket").asString();
            ApiClient.Answer[] seen = new ApiClient.Answer[1];
            await().atMost(DEADLINE).pollInterval(Duration.ofMillis(50)).until(() -> {
                seen[0] = out.get(GateEndpoints.QUEUE + "/" + ticket);
                return !seen[0].json().path("status").asString().equals("WAITING");
            });
            if (!seen[0].json().path("status").asString().equals("ADMITTED")) {
                return seen[0];
            }
            admittedUntil.put(n, Instant.parse(seen[0].json().path("admittedUntil").asString()));
            var ordered = out.order(item, "user-" + n, 1, Admission.HEADER, ticket);
            if (ordered.status() != 200) {
                refusedOrders.put(n, ordered);
            }
            return ordered;
        });

        Map<String, Long> outcomes = answers.stream().collect(Collectors.groupingBy(
                answer -> answer.status() + " " + (answer.status() == 200 && answer.json().has("orderCode") ? "ordered"
                        : answer.json().path("status").asString(answer.code())), Collectors.counting()));
        // the counter alone would make these 100 orders whatever the admissions did; what the waiting room promises
        // is in the admissions: never more than the units left minus those of unused admissions (every admitted
        // user orders at once here, so exactly 100 admissions, and none of them refused as sold out)
        assertThat(admittedUntil).as("admissions of 100 units").hasSize(100);
        assertThat(refusedOrders).as("admitted users refused at their order").isEmpty();
        assertThat(outcomes).as("%s", outcomes).containsEntry("200 ordered", 100L);
        // an entry late in the sale may also find the room full: its bound follows the units left (waiting-per-unit)
        assertThat(answers).allMatch(a -> a.status() == 200 || "SOLD_OUT".equals(a.code())
                || "QUEUE_FULL".equals(a.code()), "ordered, sold out, or the room full");
        // and one tick at a time across both instances: at most PER_TICK admitted per tick, each tick at least the
        // tick lock (nine tenths of a tick) after the last
        var ticks = admittedUntil.values().stream()
                .collect(Collectors.groupingBy(until -> until, TreeMap::new, Collectors.counting()));
        assertThat(ticks.values()).as("admissions per tick: %s", ticks).allMatch(admitted -> admitted <= PER_TICK);
        Instant previous = null;
        for (Instant tick : ticks.keySet()) {
            if (previous != null) {
                assertThat(Duration.between(previous, tick)).as("ticks %s", ticks.keySet())
                        .isGreaterThanOrEqualTo(TICK.multipliedBy(9).dividedBy(10));
            }
            previous = tick;
        }
        assertThat(orderedQuantity(item)).isEqualTo(100);
        assertThat(orderCount(item)).isEqualTo(100);
        assertThat(jdbc.sql("SELECT COUNT(DISTINCT user_id) FROM purchase_order WHERE item_code = ?").param(item)
                .query(Long.class).single()).isEqualTo(100);
        assertThat(redisCounter(item)).isZero();
    }

    @Test
    void eachTickAdmitsOnceAcrossBothInstances() {
        String item = uniqueItem("q-rate");
        setStock(item, 1000, null, Gate.QUEUE);
        var theirs = other.getBean(AdmissionScheduler.class);
        scheduler.stop();
        theirs.stop();
        var tickets = new ArrayList<String>();
        try {
            for (int i = 0; i < 100; i++) {
                ApiClient in = i % 2 == 0 ? api() : otherApi;
                tickets.add(in.post(GateEndpoints.QUEUE, ApiClient.orderJson(item, "user-" + i, 1))
                        .json().path("ticket").asString());
            }
        } finally {
            scheduler.start();
            theirs.start();
        }
        long start = System.nanoTime();
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(10)).until(() ->
                api().get(GateEndpoints.QUEUE + "/" + tickets.get(99)).json().path("status").asString(),
                "ADMITTED"::equals);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        // 100 admissions at 5 a tick are 20 ticks: the last one starts 19 ticks after the first, at least 19 tick
        // locks (nine tenths of a tick) later; two schedulers that did not share the tick would take half of it
        assertThat(took).as("20 ticks of admissions by two schedulers").isGreaterThan(Duration.ofMillis(1500));
        for (String ticket : List.of(tickets.get(0), tickets.get(50))) {
            assertThat(otherApi.get(GateEndpoints.QUEUE + "/" + ticket).json().path("status").asString())
                    .isEqualTo("ADMITTED");
        }
    }

    /** A second order-api on the same database and Redis, with the same waiting-room settings. */
    private ConfigurableApplicationContext anotherOrderApi() {
        var arguments = new ArrayList<String>();
        for (String name : List.of("spring.datasource.url", "spring.datasource.username", "spring.datasource.password",
                "spring.data.redis.host", "spring.data.redis.port", "spring.kafka.bootstrap-servers",
                "flashstock.warmup.item-code", "flashstock.admin.token", "flashstock.queue.admit-per-tick",
                "flashstock.queue.tick", "flashstock.rate-limit.enabled")) {
            arguments.add("--" + name + "=" + environment.getRequiredProperty(name));
        }
        arguments.add("--flashstock.warmup.enabled=false");
        arguments.add("--server.port=0");
        return new SpringApplicationBuilder(OrderApiApplication.class).run(arguments.toArray(String[]::new));
    }
}
