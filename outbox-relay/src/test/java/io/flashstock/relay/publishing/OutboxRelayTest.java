package io.flashstock.relay.publishing;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.relay.RelaySettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/** The loop's decisions, with the table and the producer replaced: what is marked how, and the pause. */
class OutboxRelayTest {

    private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
    private static final int BATCH_SIZE = 4;
    private static final int MAX_ATTEMPTS = 3;
    private static final Duration IDLE = Duration.ofMillis(25);
    private static final RelaySettings.Backoff BACKOFF =
            new RelaySettings.Backoff(Duration.ofMillis(100), Duration.ofSeconds(5), 2.0);

    private final OutboxTable outbox = mock(OutboxTable.class);
    private final BatchPublisher publisher = mock(BatchPublisher.class);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final RelaySettings settings = new RelaySettings("t", BATCH_SIZE, IDLE, Duration.ofSeconds(30),
            MAX_ATTEMPTS, BACKOFF, "relay-test", Duration.ofDays(1), 1000, Duration.ofMinutes(1),
            Duration.ofSeconds(5), Duration.ofSeconds(20));
    private OutboxRelay relay;

    @BeforeEach
    void setUp() {
        relay = relay(tuning("all", true));
        when(outbox.recordFailures(eq("relay-test"), anyList()))
                .thenAnswer(call -> {
                    boolean[] applied = new boolean[call.<List<?>>getArgument(1).size()];
                    Arrays.fill(applied, true);
                    return applied;
                });
    }

    @Test
    void emptyClaimWaitsTheIdleInterval() {
        when(outbox.claim("relay-test", BATCH_SIZE, settings.lease())).thenReturn(List.of());

        assertThat(relay.relayOneBatch()).isEqualTo(IDLE);
        verify(publisher, never()).publish(anyList());
    }

    @Test
    void fullBatchAcknowledgedIsMarkedSentAndClaimsAgainAtOnce() {
        List<OutboxRow> batch = rows(BATCH_SIZE, 1);
        claims(batch);
        when(publisher.publish(batch)).thenReturn(new BatchPublisher.Outcome(acked(batch), List.of()));

        assertThat(relay.relayOneBatch()).isEqualTo(Duration.ZERO);

        verify(outbox).markSent(List.of(1L, 2L, 3L, 4L));
        verify(outbox, never()).recordFailures(any(), anyList());
        assertThat(meters.get("flashstock.relay.published").counter().count()).isEqualTo(BATCH_SIZE);
        assertThat(meters.get("flashstock.relay.publish.latency").timer().count()).isEqualTo(BATCH_SIZE);
    }

    @Test
    void shortBatchWaitsTheIdleInterval() {
        List<OutboxRow> batch = rows(BATCH_SIZE - 1, 1);
        claims(batch);
        when(publisher.publish(batch)).thenReturn(new BatchPublisher.Outcome(acked(batch), List.of()));

        assertThat(relay.relayOneBatch()).isEqualTo(IDLE);
    }

    @Test
    void brokerTroubleRetriesWithBackoffAndPausesUntilEveryRetriedRowIsDueAgain() {
        OutboxRow first = row(1, 1);
        OutboxRow second = row(2, 2);
        OutboxRow last = row(3, MAX_ATTEMPTS);
        List<OutboxRow> batch = List.of(first, second, last);
        claims(batch);
        var network = new NetworkException("broker gone");
        when(publisher.publish(batch)).thenReturn(new BatchPublisher.Outcome(List.of(), List.of(
                new BatchPublisher.Failed(first, network), new BatchPublisher.Failed(second, network),
                new BatchPublisher.Failed(last, network))));

        Duration pause = relay.relayOneBatch();

        // last failed its 3rd claim: 400ms; claiming newer rows before then would overtake it
        assertThat(pause).isEqualTo(Duration.ofMillis(400));
        List<OutboxTable.Failure> failures = recordedFailures();
        // an outage never makes a row DEAD, even past max-attempts
        assertThat(failures).extracting(OutboxTable.Failure::status)
                .containsExactly(OutboxStatus.NEW, OutboxStatus.NEW, OutboxStatus.NEW);
        assertThat(failures).extracting(OutboxTable.Failure::retryAfter)
                .containsExactly(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400));
        assertThat(failures).noneMatch(OutboxTable.Failure::ownFailure);
        assertThat(failures.get(0).error()).isEqualTo("NetworkException: broker gone");
        assertThat(meters.get("flashstock.relay.retries").counter().count()).isEqualTo(3);
        assertThat(meters.get("flashstock.relay.marked.dead").counter().count()).isZero();
        verify(outbox, never()).markSent(anyList());
    }

    @Test
    void recordRefusedOnItsLastAttemptIsDead() {
        OutboxRow refused = row(1, MAX_ATTEMPTS, MAX_ATTEMPTS - 1);
        claims(List.of(refused));
        when(publisher.publish(List.of(refused))).thenReturn(new BatchPublisher.Outcome(List.of(),
                List.of(new BatchPublisher.Failed(refused, new RecordTooLargeException("too big")))));

        relay.relayOneBatch();

        assertThat(recordedFailures()).singleElement().satisfies(failure -> {
            assertThat(failure.status()).isEqualTo(OutboxStatus.DEAD);
            assertThat(failure.error()).contains("too big");
            assertThat(failure.ownFailure()).isTrue();
        });
        assertThat(meters.get("flashstock.relay.marked.dead").counter().count()).isEqualTo(1);
    }

    @Test
    void outageClaimsPastMaxAttemptsDoNotMakeTheFirstOwnFailureDead() {
        // claimed MAX_ATTEMPTS + 2 times, every earlier claim failed on the broker, none on the record
        OutboxRow waited = row(1, MAX_ATTEMPTS + 2);
        claims(List.of(waited));
        when(publisher.publish(List.of(waited))).thenReturn(new BatchPublisher.Outcome(List.of(),
                List.of(new BatchPublisher.Failed(waited, new RecordTooLargeException("refused once")))));

        relay.relayOneBatch();

        assertThat(recordedFailures()).singleElement().satisfies(failure -> {
            assertThat(failure.status()).isEqualTo(OutboxStatus.NEW);
            // its first own failure: the first step of the backoff, not the step of its claim count
            assertThat(failure.retryAfter()).isEqualTo(Duration.ofMillis(100));
            assertThat(failure.ownFailure()).isTrue();
        });
        assertThat(meters.get("flashstock.relay.marked.dead").counter().count()).isZero();
    }

    @Test
    void recordProblemDoesNotPauseTheOtherRows() {
        List<OutboxRow> batch = rows(BATCH_SIZE, 1);
        claims(batch);
        List<BatchPublisher.Acked> acked = acked(batch.subList(1, BATCH_SIZE));
        when(publisher.publish(batch)).thenReturn(new BatchPublisher.Outcome(acked,
                List.of(new BatchPublisher.Failed(batch.get(0), new RecordTooLargeException("too big")))));

        assertThat(relay.relayOneBatch()).isEqualTo(Duration.ZERO);

        verify(outbox).markSent(List.of(2L, 3L, 4L));
        assertThat(recordedFailures()).singleElement().satisfies(failure -> {
            assertThat(failure.status()).isEqualTo(OutboxStatus.NEW);
            assertThat(failure.retryAfter()).isEqualTo(Duration.ofMillis(100));
        });
    }

    @Test
    void failureMarkedByAnotherClaimIsNeitherCountedNorDead() {
        OutboxRow row = row(1, MAX_ATTEMPTS);
        claims(List.of(row));
        when(publisher.publish(List.of(row))).thenReturn(new BatchPublisher.Outcome(List.of(),
                List.of(new BatchPublisher.Failed(row, new NetworkException("gone")))));
        when(outbox.recordFailures(eq("relay-test"), anyList())).thenReturn(new boolean[] {false});

        relay.relayOneBatch();

        assertThat(meters.get("flashstock.relay.marked.dead").counter().count()).isZero();
    }

    @Test
    void refusesWeakAcksAndALeaseShorterThanASend() {
        assertThatIllegalStateException().isThrownBy(() -> relay(tuning("1", true))).withMessageContaining("acks=all");
        assertThatIllegalStateException().isThrownBy(() -> relay(tuning("all", false)))
                .withMessageContaining("enable.idempotence");
        var slow = new ProducerTuning("all", true, 5, 5, 16384, "lz4", Duration.ofSeconds(10), Duration.ofSeconds(20));
        assertThatIllegalStateException().isThrownBy(() -> relay(slow)).withMessageContaining("lease");
        var slowerThanTheStallTimeout = new ProducerTuning("all", true, 5, 5, 16384, "lz4", Duration.ofSeconds(5),
                Duration.ofSeconds(16));
        assertThatIllegalStateException().isThrownBy(() -> relay(slowerThanTheStallTimeout))
                .withMessageContaining("stall-timeout");
    }

    private OutboxRelay relay(ProducerTuning tuning) {
        return new OutboxRelay(settings, outbox, publisher, new RelayMetrics(meters, settings),
                new LoopHeartbeat(System::nanoTime), tuning);
    }

    private static ProducerTuning tuning(String acks, boolean idempotence) {
        return new ProducerTuning(acks, idempotence, 5, 5, 16384, "lz4", Duration.ofSeconds(5), Duration.ofSeconds(10));
    }

    private void claims(List<OutboxRow> batch) {
        when(outbox.claim("relay-test", BATCH_SIZE, settings.lease())).thenReturn(batch);
    }

    @SuppressWarnings("unchecked")
    private List<OutboxTable.Failure> recordedFailures() {
        ArgumentCaptor<List<OutboxTable.Failure>> captor = ArgumentCaptor.forClass(List.class);
        verify(outbox).recordFailures(eq("relay-test"), captor.capture());
        return new ArrayList<>(captor.getValue());
    }

    private static List<OutboxRow> rows(int count, int attempts) {
        return IntStream.rangeClosed(1, count).mapToObj(id -> row(id, attempts)).toList();
    }

    /** A row claimed {@code attempts} times whose earlier sends all failed on the broker, if on anything. */
    private static OutboxRow row(long id, int attempts) {
        return row(id, attempts, 0);
    }

    private static OutboxRow row(long id, int attempts, int ownFailures) {
        return new OutboxRow(id, "event-" + id, "item-" + id, "StockDeducted", "{}", NOW.minusMillis(40), attempts,
                ownFailures);
    }

    private static List<BatchPublisher.Acked> acked(List<OutboxRow> rows) {
        return rows.stream().map(row -> new BatchPublisher.Acked(row, NOW)).toList();
    }
}
