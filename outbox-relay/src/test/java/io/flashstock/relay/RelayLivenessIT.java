package io.flashstock.relay;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.relay.publishing.OutboxRow;
import io.flashstock.relay.publishing.OutboxTable;
import io.flashstock.testsupport.FaultProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A relay loop that stops moving shows as not live (so the process gets restarted), and a database socket
 * that went dead does not hold the loop for ever.
 */
class RelayLivenessIT {

    private static final String STALL_TIMEOUT = "2s";
    private static final String SOCKET_TIMEOUT_MILLIS = "5000";
    private static final Duration DEADLINE = Duration.ofSeconds(90);

    private static OutboxFixture outbox;
    private InProcessRelay relay;

    @BeforeAll
    static void prepare() {
        outbox = OutboxFixture.forRelay("relay_liveness");
    }

    @AfterEach
    void stopRelay() {
        if (relay != null) {
            relay.close();
        }
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (outbox != null) {
            outbox.close();
        }
    }

    @Test
    void loopHeldLongerThanTheStallTimeoutIsNotLiveUntilItMovesAgain() {
        relay = outbox.startRelay(settings(), HoldTheLoop.class);
        publishes("held-before");
        HeldOutboxTable table = relay.bean(HeldOutboxTable.class);

        table.holdNextClaim();
        try {
            await("loop held in a claim").atMost(DEADLINE).until(table::holding);
            await("liveness DOWN").atMost(DEADLINE).until(() -> relay.livenessStatus() == 503);
        } finally {
            table.release();
        }
        await("liveness UP again").atMost(DEADLINE).until(() -> relay.livenessStatus() == 200);
        publishes("held-after");
    }

    @Test
    void deadDatabaseSocketEndsAtTheSocketTimeoutAndTheLoopMovesOn() {
        URI database = URI.create(outbox.jdbcUrl().substring("jdbc:".length()));
        try (FaultProxy proxy = FaultProxy.to(database.getHost(), database.getPort())) {
            Map<String, String> settings = new HashMap<>(settings());
            settings.put("spring.datasource.url", "jdbc:mysql://127.0.0.1:" + proxy.port() + database.getRawPath()
                    + "?" + database.getRawQuery());
            settings.put("ORDERS_DB_SOCKET_TIMEOUT", SOCKET_TIMEOUT_MILLIS);
            relay = outbox.startRelay(settings);
            publishes("socket-before");

            proxy.cutOpenConnections();
            List<OutboxFixture.Row> after = outbox.insertNew("socket-after", 5, 50);

            AtomicBoolean seenDown = new AtomicBoolean();
            await("rows written after the cut SENT").atMost(DEADLINE).until(() -> {
                seenDown.compareAndSet(false, relay.livenessStatus() == 503);
                return outbox.count("aggregate_key LIKE 'socket-after-%' AND status = 'SENT'") == after.size();
            });
            assertThat(seenDown).as("liveness DOWN while the loop waited on a dead socket").isTrue();
            await("liveness UP again").atMost(DEADLINE).until(() -> relay.livenessStatus() == 200);
        }
    }

    private void publishes(String keyPrefix) {
        List<OutboxFixture.Row> rows = outbox.insertNew(keyPrefix, 5, 50);
        await(keyPrefix + " rows SENT").atMost(DEADLINE).until(() ->
                outbox.count("aggregate_key LIKE ? AND status = ?", keyPrefix + "-%", OutboxStatus.SENT.name())
                        == rows.size());
        assertThat(relay.livenessStatus()).isEqualTo(200);
    }

    private static Map<String, String> settings() {
        return Map.of(
                "flashstock.relay.stall-timeout", STALL_TIMEOUT,
                "flashstock.relay.idle-interval", "20ms",
                "flashstock.relay.lease", "3s",
                "flashstock.relay.backoff.initial", "100ms",
                "flashstock.relay.backoff.max", "500ms",
                // a send ends within 1.5 s, below the stall timeout
                "spring.kafka.producer.properties.max.block.ms", "500",
                "spring.kafka.producer.properties.request.timeout.ms", "500",
                "spring.kafka.producer.properties.delivery.timeout.ms", "1000");
    }

    /** Puts {@link HeldOutboxTable} in the relay's place of its table (a source, not scanned: no annotation). */
    static class HoldTheLoop {

        @Bean
        @Primary
        HeldOutboxTable heldOutboxTable(JdbcClient jdbc, JdbcTemplate batchJdbc, TransactionTemplate transaction) {
            return new HeldOutboxTable(jdbc, batchJdbc, transaction);
        }
    }

    /** Holds the loop inside its next claim until released, as a statement stuck on the network would. */
    static class HeldOutboxTable extends OutboxTable {

        private volatile CountDownLatch gate = new CountDownLatch(0);
        private volatile boolean holding;

        HeldOutboxTable(JdbcClient jdbc, JdbcTemplate batchJdbc, TransactionTemplate transaction) {
            super(jdbc, batchJdbc, transaction);
        }

        void holdNextClaim() {
            gate = new CountDownLatch(1);
        }

        boolean holding() {
            return holding;
        }

        void release() {
            gate.countDown();
        }

        @Override
        public List<OutboxRow> claim(String instance, int limit, Duration lease) {
            CountDownLatch current = gate;
            if (current.getCount() > 0) {
                holding = true;
                try {
                    current.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    holding = false;
                }
            }
            return super.claim(instance, limit, lease);
        }
    }
}
