package io.flashstock.order.queue;

import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.StockKeys;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.DefaultTransactionStatus;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The waiting room against real Redis and MariaDB: admission order, capacity, the sell-out notice, expiry, and
 * every refusal. Two admissions per 100 ms tick, admissions of 2 s, so that each state can be seen.
 */
class QueueWaitingRoomIT extends OrderApiIntegrationTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "queue");
        registry.add("flashstock.queue.admit-per-tick", () -> "2");
        registry.add("flashstock.queue.tick", () -> "100ms");
        registry.add("flashstock.queue.admission-ttl", () -> "2s");
    }

    @TestConfiguration
    static class CommitFaults {
        @Bean
        FailingCommits transactionManager(DataSource dataSource) {
            return new FailingCommits(dataSource);
        }
    }

    /** The real transaction manager, whose commits can be made to fail without committing. */
    static class FailingCommits extends JdbcTransactionManager {
        volatile boolean fail;

        FailingCommits(DataSource dataSource) {
            super(dataSource);
            setRollbackOnCommitFailure(true);
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            if (fail) {
                doRollback(status);
                throw new TransactionSystemException("injected: commit failed, nothing committed");
            }
            super.doCommit(status);
        }
    }

    @Autowired
    private AdmissionScheduler scheduler;
    @Autowired
    private FailingCommits commits;
    @Autowired
    private MeterRegistry meters;
    @Autowired
    private WaitingRoom room;
    @Autowired
    private ActiveRooms active;
    @Autowired
    private QueueSettings settings;

    @AfterEach
    void restore() {
        commits.fail = false;
        if (!scheduler.isRunning()) {
            scheduler.start();
        }
    }

    @Test
    void admitsFirstComeFirstServedAndNeverMoreUnitsThanAreLeft() {
        String item = uniqueItem("q-fcfs");
        setStock(item, 7, null, Gate.QUEUE);
        scheduler.stop();
        var tickets = new ArrayList<String>();
        for (int i = 0; i < 12; i++) {
            var entered = enter(item, "user-" + i, 1);
            assertThat(entered.status()).as("%s", entered).isEqualTo(201);
            assertThat(entered.json().path("status").asString()).isEqualTo("WAITING");
            assertThat(entered.json().path("position").asLong()).isEqualTo(i + 1);
            tickets.add(entered.json().path("ticket").asString());
        }
        scheduler.start();
        // polled from the last ticket to the first: a later ticket seen admitted before an earlier one is seen
        // waiting would be one admitted out of turn
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> {
            boolean laterAdmitted = false;
            int admitted = 0;
            for (int i = tickets.size() - 1; i >= 0; i--) {
                String status = poll(tickets.get(i)).json().path("status").asString();
                if (status.equals("ADMITTED")) {
                    laterAdmitted = true;
                    admitted++;
                } else {
                    assertThat(laterAdmitted).as("ticket %d is %s after a later one was admitted", i, status)
                            .isFalse();
                }
            }
            assertThat(admitted).as("admissions of 7 units").isLessThanOrEqualTo(7);
            return admitted == 7;
        });
        // the units are all held by admissions: the rest wait, in order, and may not order yet
        var eighth = poll(tickets.get(7));
        assertThat(eighth.json().path("status").asString()).isEqualTo("WAITING");
        assertThat(eighth.json().path("position").asLong()).isEqualTo(1);
        assertThat(eighth.json().path("estimatedWaitSeconds").isNumber()).isTrue();
        assertThat(eighth.json().path("pollAfterMillis").asLong()).isPositive();
        assertThat(poll(tickets.get(11)).json().path("position").asLong()).isEqualTo(5);
        var early = orderWith(tickets.get(7), item, "user-7", 1);
        assertThat(early.status()).as("%s", early).isEqualTo(409);
        assertThat(early.code()).isEqualTo("NOT_ADMITTED");
        var admitted = poll(tickets.get(0));
        assertThat(Instant.parse(admitted.json().path("admittedUntil").asString())).isAfter(Instant.now());
        assertThat(redisCounter(item)).isEqualTo(7);
    }

    @Test
    void everyWaitingTicketLearnsOfTheSellOutAtOnce() {
        String item = uniqueItem("q-soldout");
        setStock(item, 2, null, Gate.QUEUE);
        var tickets = new ArrayList<String>();
        for (int i = 0; i < 6; i++) {
            tickets.add(enter(item, "user-" + i, 1).json().path("ticket").asString());
        }
        awaitStatus(tickets.get(0), "ADMITTED");
        awaitStatus(tickets.get(1), "ADMITTED");
        // no scheduler from here on: the waiting tickets can only learn it from their polls
        scheduler.stop();
        assertThat(poll(tickets.get(2)).json().path("status").asString()).isEqualTo("WAITING");
        assertThat(orderWith(tickets.get(0), item, "user-0", 1).status()).isEqualTo(200);
        assertThat(poll(tickets.get(5)).json().path("status").asString()).isEqualTo("WAITING");
        assertThat(orderWith(tickets.get(1), item, "user-1", 1).status()).isEqualTo(200);

        for (String ticket : tickets.subList(2, 6)) {
            var polled = poll(ticket);
            assertThat(polled.json().path("status").asString()).as("%s", polled).isEqualTo("SOLD_OUT");
            assertThat(polled.json().has("position")).isFalse();
        }
        var late = enter(item, "late", 1);
        assertThat(late.status()).as("%s", late).isEqualTo(409);
        assertThat(late.code()).isEqualTo("SOLD_OUT");
        assertThat(orderedQuantity(item)).isEqualTo(2);
        assertThat(poll(tickets.get(0)).json().path("status").asString()).isEqualTo("ORDERED");
    }

    @Test
    void aTicketWhoseQuantityCannotFitWhatIsLeftIsSoldOutWhileSmallerOnesWait() {
        String item = uniqueItem("q-fit");
        setStock(item, 3, null, Gate.QUEUE);
        String first = enter(item, "ann", 2).json().path("ticket").asString();
        String big = enter(item, "bob", 2).json().path("ticket").asString();
        String small = enter(item, "cid", 1).json().path("ticket").asString();
        awaitStatus(first, "ADMITTED");
        assertThat(orderWith(first, item, "ann", 2).status()).isEqualTo(200);

        assertThat(poll(big).json().path("status").asString()).isEqualTo("SOLD_OUT");
        awaitStatus(small, "ADMITTED");
        assertThat(orderWith(small, item, "cid", 1).status()).isEqualTo(200);
        assertThat(orderedQuantity(item)).isEqualTo(3);
    }

    @Test
    void anUnusedAdmissionExpiresAndFreesItsPlace() {
        String item = uniqueItem("q-expiry");
        setStock(item, 1, null, Gate.QUEUE);
        String idle = enter(item, "idle", 1).json().path("ticket").asString();
        String next = enter(item, "next", 1).json().path("ticket").asString();
        awaitStatus(idle, "ADMITTED");
        assertThat(poll(next).json().path("status").asString()).isEqualTo("WAITING");

        awaitStatus(idle, "EXPIRED");
        awaitStatus(next, "ADMITTED");
        var tooLate = orderWith(idle, item, "idle", 1);
        assertThat(tooLate.status()).as("%s", tooLate).isEqualTo(409);
        assertThat(tooLate.code()).isEqualTo("ADMISSION_EXPIRED");
        // an admission that ended unused gives its user a place at the back
        var again = enter(item, "idle", 1);
        assertThat(again.status()).as("%s", again).isEqualTo(201);
        assertThat(again.json().path("position").asLong()).isEqualTo(1);
        assertThat(orderWith(next, item, "next", 1).status()).isEqualTo(200);
        assertThat(poll(again.json().path("ticket").asString()).json().path("status").asString())
                .isEqualTo("SOLD_OUT");
        assertThat(orderedQuantity(item)).isEqualTo(1);
    }

    @Test
    void aPlainOrderForAWaitingRoomItemIsRefused() {
        String item = uniqueItem("q-plain");
        setStock(item, 5, null, Gate.QUEUE);
        var plain = order(Gate.REDIS, item, "ann", 1);
        assertThat(plain.status()).as("%s", plain).isEqualTo(409);
        assertThat(plain.code()).isEqualTo("WRONG_GATE");
        assertThat(plain.json().path("gate").asString()).isEqualTo("queue");
        assertThat(redisCounter(item)).isEqualTo(5);
    }

    @Test
    void aTicketUsedAgainAnswersItsFirstOrder() {
        String item = uniqueItem("q-replay");
        setStock(item, 5, null, Gate.QUEUE);
        String ticket = enter(item, "ann", 2).json().path("ticket").asString();
        awaitStatus(ticket, "ADMITTED");
        double acceptedBefore = queueOrders("accepted");
        var first = orderWith(ticket, item, "ann", 2);
        assertThat(first.status()).as("%s", first).isEqualTo(200);
        assertThat(queueOrders("accepted") - acceptedBefore).as("counted under gate queue").isEqualTo(1);
        var again = orderWith(ticket, item, "ann", 2);
        assertThat(again.status()).as("%s", again).isEqualTo(200);
        assertThat(again.json().path("orderCode").asString()).isEqualTo(first.json().path("orderCode").asString());
        assertThat(orderCount(item)).isEqualTo(1);
        assertThat(redisCounter(item)).isEqualTo(3);
        var polled = poll(ticket);
        assertThat(polled.json().path("status").asString()).isEqualTo("ORDERED");
        assertThat(polled.json().path("orderCode").asString()).isEqualTo(first.json().path("orderCode").asString());
    }

    @Test
    void aSecondEntryBySameUserIsRefusedAndChangesNothing() {
        String item = uniqueItem("q-twice");
        setStock(item, 5, null, Gate.QUEUE);
        scheduler.stop();
        var first = enter(item, "ann", 1);
        enter(item, "bob", 1);
        var second = enter(item, "ann", 2);
        assertThat(second.status()).as("%s", second).isEqualTo(409);
        assertThat(second.code()).isEqualTo("ALREADY_QUEUED");
        assertThat(second.contentType()).startsWith("application/problem+json");
        assertThat(poll(first.json().path("ticket").asString()).json().path("position").asLong()).isEqualTo(1);
        assertThat(redis.opsForZSet().zCard(QueueKeys.queue(item, 1) + ":waiting")).isEqualTo(2);
    }

    @Test
    void unknownAndGarbledTicketsAre404() {
        String item = uniqueItem("q-unknown");
        setStock(item, 5, null, Gate.QUEUE);
        String made = Ticket.issue(item).code();
        for (String ticket : List.of(made, "garbled", made.substring(0, 23), "x".repeat(300))) {
            var polled = poll(ticket);
            assertThat(polled.status()).as("%s: %s", ticket, polled).isEqualTo(404);
            assertThat(polled.code()).isEqualTo("UNKNOWN_TICKET");
        }
        var order = orderWith(made, item, "ann", 1);
        assertThat(order.status()).as("%s", order).isEqualTo(404);
        assertThat(order.code()).isEqualTo("UNKNOWN_TICKET");
        var garbled = orderWith("garbled", item, "ann", 1);
        assertThat(garbled.code()).isEqualTo("UNKNOWN_TICKET");
        assertThat(redisCounter(item)).isEqualTo(5);
    }

    @Test
    void anOrderThatDoesNotMatchItsTicketIsRefusedAndTakesNothing() {
        String item = uniqueItem("q-mismatch");
        String other = uniqueItem("q-other");
        setStock(item, 5, null, Gate.QUEUE);
        setStock(other, 5, null, Gate.QUEUE);
        String ticket = enter(item, "ann", 2).json().path("ticket").asString();
        awaitStatus(ticket, "ADMITTED");
        for (var wrong : List.of(orderWith(ticket, item, "bob", 2), orderWith(ticket, item, "ann", 1),
                orderWith(ticket, other, "ann", 2))) {
            assertThat(wrong.status()).as("%s", wrong).isEqualTo(422);
            assertThat(wrong.code()).isEqualTo("TICKET_MISMATCH");
        }
        assertThat(redisCounter(item)).isEqualTo(5);
        assertThat(redisCounter(other)).isEqualTo(5);
        assertThat(poll(ticket).json().path("status").asString()).isEqualTo("ADMITTED");
        assertThat(orderWith(ticket, item, "ann", 2).status()).isEqualTo(200);
    }

    @Test
    void entryIsRefusedForAnItemThatIsNoWaitingRoomOrUnknown() {
        String item = uniqueItem("q-redis");
        setStock(item, 5, null, Gate.REDIS);
        var wrong = enter(item, "ann", 1);
        assertThat(wrong.status()).as("%s", wrong).isEqualTo(409);
        assertThat(wrong.code()).isEqualTo("WRONG_GATE");
        assertThat(wrong.json().path("gate").asString()).isEqualTo("redis");
        var unknown = enter(uniqueItem("q-none"), "ann", 1);
        assertThat(unknown.status()).as("%s", unknown).isEqualTo(404);
        assertThat(unknown.code()).isEqualTo("UNKNOWN_ITEM");
        var invalid = enter(item, "", 0);
        assertThat(invalid.status()).isEqualTo(400);
        assertThat(invalid.code()).isEqualTo("INVALID_REQUEST");
    }

    @Test
    void anOrderWhoseWriteFailsKeepsItsAdmission() {
        String item = uniqueItem("q-restore");
        setStock(item, 1, null, Gate.QUEUE);
        String ticket = enter(item, "ann", 1).json().path("ticket").asString();
        awaitStatus(ticket, "ADMITTED");
        commits.fail = true;
        var failed = orderWith(ticket, item, "ann", 1);
        assertThat(failed.status()).as("%s", failed).isEqualTo(503);
        assertThat(redisCounter(item)).isEqualTo(1);
        assertThat(poll(ticket).json().path("status").asString()).isEqualTo("ADMITTED");

        commits.fail = false;
        var retried = orderWith(ticket, item, "ann", 1);
        assertThat(retried.status()).as("%s", retried).isEqualTo(200);
        assertThat(orderedQuantity(item)).isEqualTo(1);
    }

    @Test
    void theReconciliationNamesWaitingTicketsAndUnusedAdmissions() {
        String item = uniqueItem("q-recon");
        setStock(item, 5, null, Gate.QUEUE);
        scheduler.stop();
        String ann = enter(item, "ann", 2).json().path("ticket").asString();
        String ben = enter(item, "ben", 2).json().path("ticket").asString();
        enter(item, "cid", 2);
        enter(item, "dan", 1);
        scheduler.start();
        awaitStatus(ann, "ADMITTED");
        awaitStatus(ben, "ADMITTED");
        // no tick from here on: ben's admission stays unused, cid (2 of the 1 unit not held) and dan wait
        scheduler.stop();
        assertThat(orderWith(ann, item, "ann", 2).status()).isEqualTo(200);

        var report = api().get("/admin/reconciliation?itemCode=" + item, "Authorization", ADMIN);
        assertThat(report.status()).as("%s", report).isEqualTo(200);
        var reconciled = report.json().path("items").path(0);
        assertThat(reconciled.path("gate").asString()).isEqualTo("queue");
        var room = reconciled.path("waitingRoom");
        assertThat(room.path("waiting").asLong()).as("%s", room).isEqualTo(2);
        assertThat(room.path("admittedUnused").asLong()).isEqualTo(1);
        assertThat(room.path("admittedUnits").asLong()).isEqualTo(2);
        // admissions hold no units of the counter: Redis is still baseline − Σ orders
        for (var invariant : reconciled.path("invariants")) {
            String name = invariant.path("name").asString();
            if (name.equals("redis-matches-orders") || name.equals("not-oversold")) {
                assertThat(invariant.path("holds").asBoolean()).as("%s", invariant).isTrue();
            }
        }
        assertThat(reconciled.path("redisRemaining").asLong()).isEqualTo(3);
    }

    @Test
    void anItemLeavesTheTickedItemsOnceSoldOutWithNothingWaiting() {
        String item = uniqueItem("q-unlist");
        setStock(item, 1, null, Gate.QUEUE);
        String ann = enter(item, "ann", 1).json().path("ticket").asString();
        String ben = enter(item, "ben", 1).json().path("ticket").asString();
        assertThat(listed(item)).as("an entry lists the item").isTrue();
        awaitStatus(ann, "ADMITTED");
        assertThat(orderWith(ann, item, "ann", 1).status()).isEqualTo(200);

        // ben is dropped as sold out; then nothing waits and no admission is unused: nothing left to tick
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> !listed(item));
        assertThat(poll(ben).json().path("status").asString()).isEqualTo("SOLD_OUT");
        assertThat(orderedQuantity(item)).isEqualTo(1);
    }

    @Test
    void anItemResetToAnotherGateLeavesTheTickedItemsAndAnEntryListsItAgain() {
        String item = uniqueItem("q-regate");
        setStock(item, 5, null, Gate.QUEUE);
        enter(item, "ann", 1);
        assertThat(listed(item)).isTrue();

        setStock(item, 5, null, Gate.REDIS);
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> !listed(item));

        setStock(item, 5, null, Gate.QUEUE);
        var entered = enter(item, "ben", 1);
        assertThat(entered.status()).as("%s", entered).isEqualTo(201);
        assertThat(listed(item)).as("the next entry lists it again").isTrue();
        awaitStatus(entered.json().path("ticket").asString(), "ADMITTED");
    }

    @Test
    void theUsersOfAQueueLiveAsLongAsItsAdmittedTickets() {
        String item = uniqueItem("q-users");
        setStock(item, 5, null, Gate.QUEUE);
        // ticked by this test alone: the scheduler would find the item in the database and tick it first
        scheduler.stop();
        var ticket = Ticket.issue(item);
        List<?> entered = redis.execute(QueueScripts.ENTER, List.of(StockKeys.counter(item),
                        StockKeys.generation(item), StockKeys.gate(item), StockKeys.inDoubt(item),
                        QueueKeys.ticket(ticket)), "ann", "1", ticket.id(),
                Long.toString(settings.ticketTtl().toMillis()), Long.toString(settings.maxWaiting()),
                Long.toString(settings.waitingPerUnit()));
        assertThat(entered.get(0)).as("%s", entered).isEqualTo("WAITING");
        String users = QueueKeys.queue(item, Long.parseLong(redis.opsForValue().get(StockKeys.generation(item))))
                + ":users";
        // an entry long ago: the users hash has a few seconds left, the ticket as long
        redis.expire(users, Duration.ofSeconds(5));

        var tick = room.admit(item);

        assertThat(tick.admitted()).as("%s", tick).isEqualTo(1);
        long usersTtl = redis.getExpire(users, TimeUnit.MILLISECONDS);
        long ticketTtl = redis.getExpire(QueueKeys.ticket(ticket), TimeUnit.MILLISECONDS);
        assertThat(usersTtl).as("the users hash outlives the admitted ticket (ms)").isGreaterThanOrEqualTo(ticketTtl);
        var again = enter(item, "ann", 1);
        assertThat(again.status()).as("%s", again).isEqualTo(409);
        assertThat(again.code()).isEqualTo("ALREADY_QUEUED");
    }

    private boolean listed(String item) {
        return active.contains(item);
    }

    private ApiClient.Answer enter(String item, String user, int quantity) {
        return api().post(GateEndpoints.QUEUE, ApiClient.orderJson(item, user, quantity));
    }

    private ApiClient.Answer poll(String ticket) {
        return api().get(GateEndpoints.QUEUE + "/" + ticket);
    }

    private ApiClient.Answer orderWith(String ticket, String item, String user, int quantity) {
        return api().order(item, user, quantity, Admission.HEADER, ticket);
    }

    private double queueOrders(String outcome) {
        return meters.get("flashstock.orders").tag("gate", "queue").tag("outcome", outcome).counter().count();
    }

    private void awaitStatus(String ticket, String status) {
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20))
                .until(() -> poll(ticket).json().path("status").asString(), status::equals);
    }

    @Test
    void retriesOfATicketWhoseOrderWasNeverWrittenDoNotRecountTheItem() {
        String item = uniqueItem("q-abandoned");
        setStock(item, 5, null, Gate.QUEUE);
        var entered = api().post(GateEndpoints.QUEUE, ApiClient.orderJson(item, "ann", 1));
        assertThat(entered.status()).as("%s", entered).isEqualTo(201);
        String code = entered.json().path("ticket").asString();
        await().atMost(Duration.ofSeconds(10)).until(() -> api().get(GateEndpoints.QUEUE + "/" + code).json()
                .path("status").asString().equals("ADMITTED"));
        // what queue/take.lua leaves when order-api dies after the take: the ticket ORDERED, the unit taken, no
        // order; its order code a UUIDv7 of ten minutes ago, past the take deadline and the take record's life
        long madeAt = Instant.now().minusSeconds(600).toEpochMilli();
        String orderCode = new java.util.UUID((madeAt << 16) | 0x7123L, 0x8000000000000042L).toString();
        String ticketKey = QueueKeys.ticket(Ticket.parse(code).orElseThrow());
        String generation = redis.opsForValue().get(StockKeys.generation(item));
        redis.opsForValue().decrement(StockKeys.counter(item));
        redis.opsForHash().put(ticketKey, "state", "ORDERED");
        redis.opsForHash().put(ticketKey, "order", orderCode);
        redis.opsForHash().put(ticketKey, "answer", orderCode + ":1:4:" + generation + ":ann");
        long epochBefore = loadEpoch(item);

        for (int i = 0; i < 3; i++) {
            var retry = api().order(item, "ann", 1, Admission.HEADER, code, "Idempotency-Key", "retry-" + i);
            assertThat(retry.code()).as("%s", retry).isEqualTo("IDEMPOTENCY_IN_PROGRESS");
        }

        assertThat(loadEpoch(item)).as("a fenced recount per retry stalls the item's commits").isEqualTo(epochBefore);
    }

    private long loadEpoch(String item) {
        return jdbc.sql("SELECT load_epoch FROM stock_item WHERE item_code = ?").param(item).query(Long.class).single();
    }

}
