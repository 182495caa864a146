package io.flashstock.order.queue;

import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.stock.Gate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The bound of a waiting room: at most 5 tickets wait, and at most 2 per unit the item has left. The entry past
 * the bound is refused, 429 {@code QUEUE_FULL} with {@code Retry-After}, and stores nothing; once the queue moves,
 * entries are taken again.
 */
class QueueBoundsIT extends OrderApiIntegrationTest {

    private static final int MAX_WAITING = 5;
    private static final int PER_UNIT = 2;

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "queuebounds");
        registry.add("flashstock.queue.max-waiting", () -> Integer.toString(MAX_WAITING));
        registry.add("flashstock.queue.waiting-per-unit", () -> Integer.toString(PER_UNIT));
        registry.add("flashstock.queue.admission-ttl", () -> "1s");
    }

    @Autowired
    private AdmissionScheduler scheduler;

    @AfterEach
    void restore() {
        if (!scheduler.isRunning()) {
            scheduler.start();
        }
    }

    @Test
    void theEntryPastMaxWaitingIsRefusedAndStoresNothingUntilTheQueueMoves() {
        String item = uniqueItem("qb-max");
        setStock(item, 100, null, Gate.QUEUE);
        scheduler.stop();
        for (int i = 0; i < MAX_WAITING; i++) {
            var entered = enter(item, "user-" + i);
            assertThat(entered.status()).as("%s", entered).isEqualTo(201);
        }
        long keysBefore = keysOf(item);

        var refused = enter(item, "late");

        assertQueueFull(refused, MAX_WAITING);
        assertThat(waiting(item)).isEqualTo(MAX_WAITING);
        assertThat(redis.opsForValue().get(queue(item) + ":seq")).isEqualTo(Integer.toString(MAX_WAITING));
        assertThat(redis.opsForHash().hasKey(queue(item) + ":users", "late")).isFalse();
        assertThat(keysOf(item)).as("no ticket stored").isEqualTo(keysBefore);

        // the waiting are admitted (100 units): their places are free again
        scheduler.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> waiting(item) == 0);
        var again = enter(item, "late");
        assertThat(again.status()).as("%s", again).isEqualTo(201);
    }

    @Test
    void atMostSoManyWaitPerUnitLeft() {
        String item = uniqueItem("qb-unit");
        setStock(item, 2, null, Gate.QUEUE);
        scheduler.stop();
        for (int i = 0; i < 2 * PER_UNIT; i++) {
            var entered = enter(item, "user-" + i);
            assertThat(entered.status()).as("%s", entered).isEqualTo(201);
        }

        assertQueueFull(enter(item, "late"), 2 * PER_UNIT);
        assertThat(waiting(item)).isEqualTo(2 * PER_UNIT);
    }

    @Test
    void anAdmissionThatEndsUnusedIsForgottenSoonAndItsUserMayEnterAgain() {
        String item = uniqueItem("qb-ended");
        setStock(item, 1, null, Gate.QUEUE);
        String ticket = QueueKeys.ticket(Ticket.parse(enter(item, "bot").json().path("ticket").asString())
                .orElseThrow());

        // admitted, unused for its second, ended by a tick
        await().atMost(Duration.ofSeconds(20)).until(() -> "EXPIRED".equals(redis.opsForHash().get(ticket, "state")));

        // kept for its user's next polls, not for the ticket TTL (an hour): bots admitted round after round and never
        // ordering would otherwise leave a ticket and a users entry each, for an hour, past every bound
        assertThat(redis.getExpire(ticket, TimeUnit.SECONDS)).as("seconds the ended ticket is kept")
                .isLessThanOrEqualTo(60);
        assertThat(redis.opsForHash().hasKey(queue(item) + ":users", "bot")).isFalse();
        assertThat(enter(item, "bot").status()).isEqualTo(201);
    }

    private static void assertQueueFull(ApiClient.Answer refused, long bound) {
        assertThat(refused.status()).as("%s", refused).isEqualTo(429);
        assertThat(refused.code()).isEqualTo("QUEUE_FULL");
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.json().path("maxWaiting").asLong()).isEqualTo(bound);
        assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow())).isPositive();
    }

    private ApiClient.Answer enter(String item, String user) {
        return api().post(GateEndpoints.QUEUE, ApiClient.orderJson(item, user, 1));
    }

    private long waiting(String item) {
        return redis.opsForZSet().zCard(queue(item) + ":waiting");
    }

    private long keysOf(String item) {
        return redis.keys("stock:{" + item + "}*").size();
    }

    private String queue(String item) {
        return QueueKeys.queue(item, Long.parseLong(redis.opsForValue().get(
                io.flashstock.order.stock.StockKeys.generation(item))));
    }
}
