package io.flashstock.order.placement.commit;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.placement.core.PlacementSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The group commit against a {@link FakeBatchWriter}, which records each transaction and fails the ones it is
 * told to.
 */
class GroupCommitTest {

    private final FakeBatchWriter database = new FakeBatchWriter();
    private final ExecutorService requests = Executors.newCachedThreadPool();

    @AfterEach
    void stopRequests() {
        database.release();
        requests.shutdownNow();
    }

    @Test
    void aLoneOrderIsWrittenInATransactionOfItsOwn() {
        groupCommit(1, 64).write(order("a"), OutboxStatus.NEW);

        assertThat(database.committed()).containsExactly(List.of("a"));
    }

    @Test
    void ordersThatQueueWhileATransactionIsWrittenShareTheNext() throws Exception {
        var queued = queuedBehindAHeldTransaction(groupCommit(1, 64), "b", "c", "d");

        awaitAll(queued);
        assertThat(database.committed()).hasSize(2);
        assertThat(database.committed().get(0)).containsExactly("first");
        assertThat(database.committed().get(1)).containsExactlyInAnyOrder("b", "c", "d");
    }

    @Test
    void noTransactionWritesMoreThanTheMaxBatch() throws Exception {
        var queued = queuedBehindAHeldTransaction(groupCommit(1, 2), "b", "c", "d");

        awaitAll(queued);
        assertThat(database.committed()).allSatisfy(batch -> assertThat(batch).hasSizeLessThanOrEqualTo(2));
        assertThat(database.committed().stream().flatMap(List::stream)).containsExactlyInAnyOrder(
                "first", "b", "c", "d");
    }

    @Test
    void aFencedOrderFailsAloneAndTheRestOfItsBatchIsWritten() throws Exception {
        database.fence("stale");

        var queued = queuedBehindAHeldTransaction(groupCommit(1, 64), "stale", "fresh");

        queued.get("fresh").get(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> queued.get("stale").get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(GroupCommit.Fenced.class);
        assertThat(database.committed().get(1)).containsExactly("fresh");
    }

    @Test
    void aBatchThatOneOrderFailsIsRetriedOrderByOrderSoOnlyThatOrderFails() throws Exception {
        database.reject("bad", code -> new CheckedCommit.NotWritten(new DataIntegrityViolationException(code)));

        var queued = queuedBehindAHeldTransaction(groupCommit(1, 64), "bad", "good");

        queued.get("good").get(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> queued.get("bad").get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(CheckedCommit.NotWritten.class);
        assertThat(database.committed()).containsExactly(List.of("first"), List.of("good"));
    }

    @Test
    void aBatchThatCouldNotReachTheDatabaseFailsWholeWithoutARetryPerOrder() throws Exception {
        database.reject("b", code -> new CheckedCommit.NotWritten(new DataAccessResourceFailureException("down")));

        var queued = queuedBehindAHeldTransaction(groupCommit(1, 64), "b", "c");

        for (var order : queued.values()) {
            assertThatThrownBy(() -> order.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(CheckedCommit.NotWritten.class);
        }
        assertThat(database.attempts()).as("the held batch and the failed one, no retry per order").isEqualTo(2);
    }

    @Test
    void aCommitThatCouldNotBeConfirmedLeavesEveryOrderOfItsBatchInDoubt() throws Exception {
        database.reject("b", code -> new CheckedCommit.OutcomeUnknown(new DataAccessResourceFailureException("lost")));

        var queued = queuedBehindAHeldTransaction(groupCommit(1, 64), "b", "c");

        for (var order : queued.values()) {
            assertThatThrownBy(() -> order.get(5, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(CheckedCommit.OutcomeUnknown.class);
        }
    }

    @Test
    void anErrorInABatchLeavesItsOrdersInDoubtAndTheWriterSlotFree() {
        var commit = groupCommit(1, 64);
        database.reject("boom", code -> {
            throw new AssertionError("injected");
        });

        assertThatThrownBy(() -> commit.write(order("boom"), OutboxStatus.NEW))
                .isInstanceOf(CheckedCommit.OutcomeUnknown.class);
        commit.write(order("next"), OutboxStatus.NEW);
        assertThat(database.committed()).containsExactly(List.of("next"));
    }

    @Test
    void withoutWritersEveryOrderIsATransactionOfItsOwnOnItsOwnThread() throws Exception {
        var commit = groupCommit(0, 64);
        database.holdFirst();
        var first = place(commit, "first");
        database.awaitHeld();
        var second = place(commit, "second");
        second.get(5, TimeUnit.SECONDS);

        database.release();
        first.get(5, TimeUnit.SECONDS);
        assertThat(database.committed()).containsExactly(List.of("second"), List.of("first"));
    }

    /**
     * Holds the transaction of an order "first" open, queues the orders {@code codes} behind it, then lets it commit;
     * the queued orders' requests, by code.
     */
    private Map<String, Future<?>> queuedBehindAHeldTransaction(GroupCommit commit, String... codes) throws Exception {
        database.holdFirst();
        var first = place(commit, "first");
        database.awaitHeld();
        var queued = new LinkedHashMap<String, Future<?>>();
        for (String code : codes) {
            queued.put(code, place(commit, code));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> commit.queued() == codes.length);
        database.release();
        first.get(5, TimeUnit.SECONDS);
        return queued;
    }

    private static void awaitAll(Map<String, Future<?>> requests) throws Exception {
        for (var request : requests.values()) {
            request.get(5, TimeUnit.SECONDS);
        }
    }

    private GroupCommit groupCommit(int writers, int maxBatch) {
        return new GroupCommit(database, new PlacementSettings.GroupCommit(writers, maxBatch),
                new SimpleMeterRegistry());
    }

    private Future<?> place(GroupCommit commit, String code) {
        return requests.submit(() -> commit.write(order(code), OutboxStatus.NEW));
    }

    private static PlacedOrder order(String code) {
        return new PlacedOrder(code, UUID.randomUUID(), new OrderCommand("item", "user", 1, null), 1, 0, 9,
                Instant.EPOCH);
    }
}
