package io.flashstock.order.placement;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockDeducted;
import io.flashstock.contract.StockEvent;
import io.flashstock.contract.Utc;
import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.placement.commit.CheckedCommit;
import io.flashstock.order.placement.commit.GroupCommit;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.placement.dblock.DbLockTransactions;
import io.flashstock.order.placement.gate.GateResult;
import io.flashstock.order.placement.gate.InDoubtEntry;
import io.flashstock.order.placement.gate.RedisStockGate;
import io.flashstock.order.placement.gate.TakenStock;
import io.flashstock.order.placement.indoubt.OrderApiLiveness;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.StockKeys;
import io.flashstock.warmup.WarmupFixture;
import io.flashstock.warmup.WarmupProperties;
import io.flashstock.warmup.WarmupTicket;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.DefaultTransactionStatus;
import tools.jackson.databind.json.JsonMapper;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

@ExtendWith(OutputCaptureExtension.class)
class OrderPlacementIT extends OrderApiIntegrationTest {

    /** Concurrent clients; a fixed pool, since the tests run on JDK 17 (no virtual threads). */
    private static final int CLIENTS = 48;

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "placement");
    }

    @TestConfiguration
    static class CommitFaults {
        @Bean
        FaultyCommits transactionManager(DataSource dataSource) {
            return new FaultyCommits(dataSource);
        }

        /** The DB-lock baseline's commits, on its own pool, fail as the orders pool's are set to. */
        @Bean
        DbLockTransactions faultyDbLockCommits(FaultyCommits commits) {
            return pool -> new FaultyCommits(pool, commits);
        }
    }

    /** The real transaction manager, whose commit can be made to fail before or after it took effect. */
    static class FaultyCommits extends JdbcTransactionManager {
        enum Fault { NONE, FAIL_WITHOUT_COMMITTING, FAIL_AFTER_COMMITTING }

        volatile Fault fault = Fault.NONE;
        private final FaultyCommits faultsOf;

        FaultyCommits(DataSource dataSource) {
            this(dataSource, null);
        }

        /** Commits on {@code dataSource} that fail as {@code faultsOf} is set to (another pool's, the same test). */
        FaultyCommits(DataSource dataSource, FaultyCommits faultsOf) {
            super(dataSource);
            this.faultsOf = faultsOf;
            setRollbackOnCommitFailure(true);
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            switch (faultsOf == null ? fault : faultsOf.fault) {
                case NONE -> super.doCommit(status);
                case FAIL_WITHOUT_COMMITTING -> {
                    doRollback(status);
                    throw new TransactionSystemException("injected: commit failed, nothing committed");
                }
                case FAIL_AFTER_COMMITTING -> {
                    super.doCommit(status);
                    throw new TransactionSystemException("injected: committed, but the reply was lost");
                }
            }
        }
    }

    @Autowired
    private MeterRegistry meters;
    @Autowired
    private FaultyCommits commits;
    @Autowired
    private WarmupFixture warmupFixture;
    @Autowired
    private WarmupProperties warmup;
    @Autowired
    private WarmupTicket ticket;
    @Autowired
    private JsonMapper jsonMapper;
    @Autowired
    private RedisStockGate gate;
    @Autowired
    private TakenStock takenStock;
    /** Held under this order-api's own name, so that no settlement of abandoned orders takes them meanwhile. */
    @Autowired
    private OrderApiLiveness liveness;
    @Autowired
    private CheckedCommit checkedCommit;
    @Autowired
    private GroupCommit groupCommit;
    @Autowired
    private DataSource dataSource;

    @AfterEach
    void healCommits() {
        commits.fault = FaultyCommits.Fault.NONE;
    }

    @Test
    void twoThousandConcurrentOrdersForAHundredUnitsSellExactlyAHundred() throws Exception {
        String item = uniqueItem("rush");
        setStock(item, 100, null);
        double acceptedBefore = count("flashstock.orders", "gate", "redis", "outcome", "accepted");
        double soldOutBefore = count("flashstock.orders", "gate", "redis", "outcome", "sold_out");

        List<ApiClient.Answer> answers = concurrently(CLIENTS, 2_000, i -> api().order(item, "user-" + i, 1));

        Map<Integer, Long> byStatus = answers.stream()
                .collect(Collectors.groupingBy(ApiClient.Answer::status, Collectors.counting()));
        assertThat(byStatus).containsExactlyInAnyOrderEntriesOf(Map.of(200, 100L, 409, 1_900L));
        assertThat(answers.stream().filter(a -> a.status() == 409).map(ApiClient.Answer::code))
                .containsOnly("SOLD_OUT");
        assertThat(answers.stream().filter(a -> a.status() == 200).map(a -> a.json().get("orderCode").asString())
                .distinct()).hasSize(100);
        assertThat(redisCounter(item)).isZero();
        assertThat(orderCount(item)).isEqualTo(100);
        assertThat(orderedQuantity(item)).isEqualTo(100);
        assertThat(outboxCount(item, StockDeducted.TYPE)).isEqualTo(100);
        assertThat(outboxQuantity(item)).isEqualTo(100);
        assertThat(count("flashstock.orders", "gate", "redis", "outcome", "accepted") - acceptedBefore).isEqualTo(100);
        assertThat(count("flashstock.orders", "gate", "redis", "outcome", "sold_out") - soldOutBefore).isEqualTo(1_900);
    }

    @Test
    void aTakeSentTwiceForOneOrderTakesOnceAndAnswersTheSame() {
        String item = uniqueItem("resent");
        setStock(item, 10, null);
        var order = new OrderCommand(item, "rita", 3, null);

        GateResult first = gate.take(order, "order-resent-1");
        GateResult again = gate.take(order, "order-resent-1");

        long load = Long.parseLong(redis.opsForValue().get(StockKeys.load(item)));
        assertThat(first).isEqualTo(new GateResult.Taken(7, 1, load));
        assertThat(again).isEqualTo(first);
        assertThat(redisCounter(item)).isEqualTo(7);
        assertThat(gate.take(order, "order-resent-2")).isEqualTo(new GateResult.Taken(4, 1, load));
    }

    @Test
    void aGiveBackSentTwiceGivesOnceAndNoneAfterAReloadCountedTheStock() {
        String item = uniqueItem("give-back");
        setStock(item, 10, null);
        PlacedOrder given = take(item, "order-given-back", 3);
        PlacedOrder counted = take(item, "order-counted", 2);

        assertThat(takenStock.giveBack(given)).isTrue();
        assertThat(takenStock.giveBack(given)).as("given back once").isFalse();
        assertThat(redisCounter(item)).isEqualTo(8);
        var reloaded = reload(item);
        assertThat(reloaded.status()).as("%s", reloaded).isEqualTo(200);
        assertThat(redisCounter(item)).as("recounted from the orders written: none").isEqualTo(10);
        assertThat(takenStock.giveBack(counted)).as("the reload counted it already").isFalse();
        assertThat(redisCounter(item)).isEqualTo(10);
    }

    @Test
    void anOrderInDoubtGetsItsStockBackOnceAndNotAfterAReloadCountedIt() {
        String item = uniqueItem("in-doubt");
        setStock(item, 10, null);
        PlacedOrder first = takeAndHoldInDoubt(item, "order-in-doubt-1", 3);
        PlacedOrder second = takeAndHoldInDoubt(item, "order-in-doubt-2", 2);
        // taken before the reload below, but found in doubt only after it
        PlacedOrder late = take(item, "order-in-doubt-late", 1);
        assertThat(redisCounter(item)).isEqualTo(4);
        var held = redis.opsForHash().entries(StockKeys.inDoubt(item));
        assertThat(held).containsOnlyKeys("order-in-doubt-1", "order-in-doubt-2");
        var entry = InDoubtEntry.parse(item, "order-in-doubt-1", (String) held.get("order-in-doubt-1")).orElseThrow();
        assertThat(entry).as("what any order-api needs to settle it").extracting(InDoubtEntry::quantity,
                        InDoubtEntry::generation, InDoubtEntry::loadEpoch, InDoubtEntry::owner, InDoubtEntry::gate,
                        InDoubtEntry::userId)
                .containsExactly(3, first.generation(), first.loadEpoch(), liveness.self(), Gate.REDIS, "ivan");
        var report = api().get("/admin/reconciliation?itemCode=" + item, "Authorization", ADMIN);
        assertThat(report.json().at("/items/0/invariants/0/difference").asLong()).isEqualTo(-6);
        assertThat(report.json().at("/items/0/invariants/0/detail").asString())
                .as("the late order is not held in doubt yet").contains("by other than the 5 units orders in doubt hold");

        assertThat(takenStock.giveBackInDoubt(first)).isTrue();
        assertThat(takenStock.giveBackInDoubt(first)).as("given back once").isFalse();
        assertThat(redisCounter(item)).isEqualTo(7);

        var reloaded = reload(item);
        assertThat(reloaded.status()).as("%s", reloaded).isEqualTo(200);
        assertThat(redisCounter(item)).as("recounted from the orders written: none").isEqualTo(10);
        assertThat(redis.hasKey(StockKeys.inDoubt(item))).isFalse();
        assertThat(takenStock.giveBackInDoubt(second)).as("the reload counted it already").isFalse();
        takenStock.holdInDoubt(late, liveness.self());
        assertThat(takenStock.giveBackInDoubt(late)).as("held after the reload, which counted it already").isFalse();
        assertThat(redisCounter(item)).isEqualTo(10);
    }

    private PlacedOrder take(String item, String orderCode, int quantity) {
        var command = new OrderCommand(item, "ivan", quantity, null);
        var taken = (GateResult.Taken) gate.take(command, orderCode);
        return new PlacedOrder(orderCode, UUID.randomUUID(), command, taken.generation(), taken.loadEpoch(),
                taken.remaining(), Instant.now());
    }

    private PlacedOrder takeAndHoldInDoubt(String item, String orderCode, int quantity) {
        PlacedOrder order = take(item, orderCode, quantity);
        takenStock.holdInDoubt(order, liveness.self());
        return order;
    }

    @Test
    void anErrorInsideAnOrderTransactionLeavesNoTransactionForTheThreadsNextOrder() throws Exception {
        String item = uniqueItem("error");
        setStock(item, 5, null);
        var injected = new AssertionError("injected: an Error inside the order transaction");

        assertThatThrownBy(() -> checkedCommit.inTransaction("order-that-errs", () -> {
            throw injected;
        })).isSameAs(injected);
        // the next order written on this thread must have a transaction of its own, and be committed
        PlacedOrder next = take(item, "order-after-error", 1);
        groupCommit.write(next, OutboxStatus.NEW);

        try (var connection = dataSource.getConnection();
             var query = connection.prepareStatement("SELECT COUNT(*) FROM purchase_order WHERE order_code = ?")) {
            query.setString(1, next.orderCode());
            try (var rows = query.executeQuery()) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getLong(1)).as("committed, as seen from another connection").isEqualTo(1);
            }
        }
    }

    @Test
    void concurrentOrdersShareTransactionsAndEachIsCommitted() throws Exception {
        String item = uniqueItem("group-commit");
        setStock(item, 10_000, null);
        var batches = meters.get("flashstock.order.batch.size").summary();
        long batchesBefore = batches.count();
        double ordersBefore = batches.totalAmount();

        List<ApiClient.Answer> answers = concurrently(CLIENTS, 600, i -> api().order(item, "user-" + i, 1));

        assertThat(answers).allMatch(a -> a.status() == 200);
        assertThat(orderCount(item)).isEqualTo(600);
        assertThat(outboxCount(item, StockDeducted.TYPE)).isEqualTo(600);
        assertThat(batches.totalAmount() - ordersBefore).isEqualTo(600);
        assertThat(batches.count() - batchesBefore).as("transactions for 600 concurrent orders").isLessThan(600);
    }

    @Test
    void mixedQuantitiesTakeWhatTheyAskAndNeverOversell() throws Exception {
        String item = uniqueItem("mixed");
        setStock(item, 50, null);

        List<ApiClient.Answer> answers = concurrently(CLIENTS, 200, i -> api().order(item, "user-" + i, 1 + i % 5));

        var accepted = answers.stream().filter(a -> a.status() == 200).toList();
        long taken = accepted.stream().mapToLong(a -> a.json().get("quantity").asLong()).sum();
        assertThat(taken).isLessThanOrEqualTo(50).isGreaterThan(45);
        assertThat(answers).allSatisfy(a -> assertThat(a.status()).isIn(200, 409));
        assertThat(redisCounter(item)).isEqualTo(50 - taken);
        assertThat(orderedQuantity(item)).isEqualTo(taken);
        assertThat(outboxQuantity(item)).isEqualTo(taken);
        for (var answer : accepted) {
            long stored = jdbc.sql("SELECT quantity FROM purchase_order WHERE order_code = ?")
                    .param(answer.json().get("orderCode").asString()).query(Long.class).single();
            assertThat(stored).isEqualTo(answer.json().get("quantity").asLong());
        }
    }

    @Test
    void theSameIdempotencyKeyTwiceGivesOneOrderOneDecrementAndTheSameAnswer() {
        String item = uniqueItem("idem");
        setStock(item, 10, null);

        var first = api().order(item, "alice", 3, "Idempotency-Key", "order-42");
        var second = api().order(item, "alice", 3, "Idempotency-Key", "order-42");

        assertThat(first.status()).isEqualTo(200);
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.json()).isEqualTo(first.json());
        assertThat(first.json().get("remaining").asLong()).isEqualTo(7);
        assertThat(redisCounter(item)).isEqualTo(7);
        assertThat(orderCount(item)).isEqualTo(1);
        assertThat(outboxCount(item, StockDeducted.TYPE)).isEqualTo(1);
        assertThat(jdbc.sql("SELECT idempotency_key FROM purchase_order WHERE item_code = ?").param(item)
                .query(String.class).single()).isEqualTo("order-42");

        var otherOrder = api().order(item, "alice", 2, "Idempotency-Key", "order-42");
        assertThat(otherOrder.status()).isEqualTo(422);
        assertThat(otherOrder.code()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(redisCounter(item)).isEqualTo(7);
    }

    @Test
    void aRetryAfterRedisLostTheKeysFirstAnswerIsAnsweredFromTheDatabaseAndSellsNothing() {
        String item = uniqueItem("idem-lost");
        setStock(item, 10, null);
        var first = api().order(item, "olga", 3, "Idempotency-Key", "order-42");
        assertThat(first.status()).isEqualTo(200);
        // what a Redis restart without persistence, a failover or the key's TTL leaves
        redis.delete(StockKeys.idempotency(item, "order-42"));

        var retry = api().order(item, "olga", 3, "Idempotency-Key", "order-42");
        var otherOrder = api().order(item, "olga", 2, "Idempotency-Key", "order-42");

        assertThat(retry.status()).as("%s", retry).isEqualTo(200);
        assertThat(retry.json()).isEqualTo(first.json());
        assertThat(otherOrder.status()).as("%s", otherOrder).isEqualTo(422);
        assertThat(otherOrder.code()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(orderCount(item)).isEqualTo(1);
        assertThat(outboxCount(item, StockDeducted.TYPE)).isEqualTo(1);
        assertThat(redisCounter(item)).as("the retries' takes were given back").isEqualTo(7);
    }

    @Test
    void aKeyWhoseFirstAttemptWasAbandonedLongAgoIsSettledAndTheRetryServed() {
        String item = uniqueItem("idem-abandoned");
        // the abandoned attempt used up the user's limit: the retry may only pass once its units are counted back
        setStock(item, 5, 2);
        String abandoned = uuidV7At(Instant.now().minus(Duration.ofMinutes(10)));
        // the first attempt took 2 units, then its order-api died before the commit, so long ago that the
        // take's record has expired: no one can write that order or give its units back any more
        gate.take(new OrderCommand(item, "pia", 2, "stuck-key"), abandoned);
        redis.delete(StockKeys.taken(item, abandoned));
        assertThat(redisCounter(item)).isEqualTo(3);

        var retry = api().order(item, "pia", 2, "Idempotency-Key", "stuck-key");

        assertThat(retry.status()).as("%s", retry).isEqualTo(200);
        assertThat(retry.json().get("orderCode").asString()).isNotEqualTo(abandoned);
        assertThat(orderCount(item)).isEqualTo(1);
        assertThat(redisCounter(item)).as("the abandoned attempt's units were counted back").isEqualTo(3);
        assertThat(api().order(item, "pia", 2, "Idempotency-Key", "stuck-key").json()).isEqualTo(retry.json());
    }

    @Test
    void aKeyWhoseFirstAttemptMayStillWriteStaysInProgress() {
        String item = uniqueItem("idem-young");
        setStock(item, 5, null);
        String old = uuidV7At(Instant.now().minus(Duration.ofMinutes(10)));
        // old, but its take's record is still there: its request may still commit or give back
        gate.take(new OrderCommand(item, "pia", 2, "young-key"), old);

        var retry = api().order(item, "pia", 2, "Idempotency-Key", "young-key");

        assertThat(retry.status()).as("%s", retry).isEqualTo(409);
        assertThat(retry.code()).isEqualTo("IDEMPOTENCY_IN_PROGRESS");
        assertThat(redisCounter(item)).isEqualTo(3);
        assertThat(orderCount(item)).isZero();
    }

    /** A UUIDv7 made at {@code time}, as order codes are. */
    private static String uuidV7At(Instant time) {
        var random = ThreadLocalRandom.current();
        long high = (time.toEpochMilli() << 16) | 0x7000L | (random.nextLong() & 0x0FFFL);
        long low = 0x8000_0000_0000_0000L | (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL);
        return new UUID(high, low).toString();
    }

    @Test
    void concurrentRequestsWithOneIdempotencyKeyPlaceOneOrder() throws Exception {
        String item = uniqueItem("idem-race");
        setStock(item, 10, null);

        List<ApiClient.Answer> answers = concurrently(CLIENTS, 20,
                i -> api().order(item, "bob", 1, "Idempotency-Key", "same-key"));

        assertThat(answers).allSatisfy(a -> assertThat(a.status() == 200
                || "IDEMPOTENCY_IN_PROGRESS".equals(a.code())).as("%s", a).isTrue());
        assertThat(answers.stream().filter(a -> a.status() == 200).map(a -> a.json().get("orderCode").asString())
                .distinct()).hasSize(1);
        assertThat(redisCounter(item)).isEqualTo(9);
        assertThat(orderCount(item)).isEqualTo(1);
    }

    @Test
    void thePerUserLimitHoldsPerGenerationAndOtherUsersStillBuy() {
        String item = uniqueItem("limit");
        setStock(item, 10, 2);

        assertThat(api().order(item, "carol", 1).status()).isEqualTo(200);
        assertThat(api().order(item, "carol", 1).status()).isEqualTo(200);
        var third = api().order(item, "carol", 1);
        assertThat(third.status()).isEqualTo(409);
        assertThat(third.code()).isEqualTo("PER_USER_LIMIT_REACHED");
        assertThat(third.json().get("bought").asLong()).isEqualTo(2);
        assertThat(third.json().get("perUserLimit").asLong()).isEqualTo(2);
        var tooMany = api().order(item, "dave", 3);
        assertThat(tooMany.code()).isEqualTo("PER_USER_LIMIT_REACHED");
        assertThat(api().order(item, "dave", 2).status()).isEqualTo(200);
        assertThat(redisCounter(item)).isEqualTo(6);

        setStock(item, 10, 2);
        assertThat(api().order(item, "carol", 2).status()).as("a reset starts a new generation").isEqualTo(200);
        assertThat(redisCounter(item)).isEqualTo(8);
    }

    @Test
    void anItemWithoutStockIsUnknownButAnItemRedisLostIsRebuiltByTheEngine() {
        var unknown = api().order(uniqueItem("never-set"), "erin", 1);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.code()).isEqualTo("UNKNOWN_ITEM");
        assertThat(unknown.contentType()).isEqualTo("application/problem+json");

        String item = uniqueItem("lost");
        setStock(item, 5, null);
        redis.delete(StockKeys.itemKeys(item));
        var reloading = api().order(item, "erin", 1);
        assertThat(reloading.status()).isEqualTo(503);
        assertThat(reloading.code()).isEqualTo("STOCK_RELOADING");
        assertThat(reloading.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(orderCount(item)).isZero();

        await("the engine rebuilds the counter").atMost(Duration.ofSeconds(10))
                .until(() -> Long.valueOf(5).equals(redisCounter(item)));
        assertThat(api().order(item, "erin", 1).status()).isEqualTo(200);
        assertThat(redisCounter(item)).isEqualTo(4);
    }

    @Test
    void aCommitThatFailsGivesTheStockBackAndForgetsTheIdempotencyKey() {
        String item = uniqueItem("commit-fails");
        setStock(item, 5, 3);
        double givenBack = count("flashstock.order.compensations", "result", "given_back");

        commits.fault = FaultyCommits.Fault.FAIL_WITHOUT_COMMITTING;
        var failed = api().order(item, "frank", 2, "Idempotency-Key", "retry-me");

        assertThat(failed.status()).isEqualTo(503);
        assertThat(failed.code()).isEqualTo("DATABASE_UNAVAILABLE");
        assertThat(redisCounter(item)).isEqualTo(5);
        assertThat(redis.opsForValue().get(StockKeys.idempotency(item, "retry-me"))).isNull();
        assertThat(redis.opsForValue().get(StockKeys.bought(item, 1, "frank"))).isEqualTo("0");
        assertThat(orderCount(item)).isZero();
        assertThat(outboxCount(item, StockDeducted.TYPE)).isZero();
        assertThat(count("flashstock.order.compensations", "result", "given_back") - givenBack).isEqualTo(1);

        commits.fault = FaultyCommits.Fault.NONE;
        var retry = api().order(item, "frank", 2, "Idempotency-Key", "retry-me");
        assertThat(retry.status()).isEqualTo(200);
        assertThat(redisCounter(item)).isEqualTo(3);
    }

    @Test
    void aCommitThatTookEffectDespiteAnErrorStandsAndKeepsItsStock() {
        String item = uniqueItem("commit-lost-reply");
        setStock(item, 5, null);

        commits.fault = FaultyCommits.Fault.FAIL_AFTER_COMMITTING;
        var answer = api().order(item, "grace", 1);

        assertThat(answer.status()).isEqualTo(200);
        assertThat(redisCounter(item)).isEqualTo(4);
        assertThat(orderCount(item)).isEqualTo(1);
        assertThat(outboxCount(item, StockDeducted.TYPE)).isEqualTo(1);
    }

    @Test
    void theOutboxPayloadIsAStockDeductedEventOfTheOrder() {
        String item = uniqueItem("payload");
        setStock(item, 5, null);
        var answer = api().order(item, "heidi", 2);
        String orderCode = answer.json().get("orderCode").asString();

        var row = jdbc.sql("""
                        SELECT o.event_id, o.created_at, e.event_type, e.payload, e.status FROM purchase_order o
                        JOIN outbox_event e ON e.event_id = o.event_id WHERE o.order_code = ?""")
                .param(orderCode).query().singleRow();
        StockEvent event = jsonMapper.readValue((String) row.get("payload"), StockEvent.class);

        assertThat(row.get("event_type")).isEqualTo(StockDeducted.TYPE);
        assertThat(row.get("status")).isEqualTo("NEW");
        assertThat(event).isInstanceOfSatisfying(StockDeducted.class, deducted -> {
            assertThat(deducted.eventId().toString()).isEqualTo(row.get("event_id"));
            assertThat(deducted.orderCode()).isEqualTo(orderCode);
            assertThat(deducted.itemCode()).isEqualTo(item);
            assertThat(deducted.userId()).isEqualTo("heidi");
            assertThat(deducted.quantity()).isEqualTo(2);
            assertThat(deducted.generation()).isEqualTo(1);
            assertThat(Utc.fromColumn((LocalDateTime) row.get("created_at")))
                    .as("microseconds kept").isEqualTo(deducted.occurredAt().truncatedTo(ChronoUnit.MICROS));
        });
        assertThat(orderCode).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    }

    @Test
    void warmupOrdersRunTheRealPathAndLeaveNoTrace() {
        String item = warmup.itemCode();
        warmupFixture.prepare(item, 10);

        var answer = api().order(item, "warmup", 1, "Idempotency-Key", "warm-1", WarmupTicket.HEADER, ticket.value());

        assertThat(answer.status()).isEqualTo(200);
        assertThat(jdbc.sql("SELECT status FROM outbox_event WHERE aggregate_key = ?").param(item)
                .query(String.class).single()).isEqualTo("WARMUP");
        assertThat(warmupFixture.cleanUp(item)).isEqualTo(1);
        assertThat(orderCount(item)).isZero();
        assertThat(outboxCount(item, StockDeducted.TYPE)).isZero();
        assertThat(redis.countExistingKeys(List.of(StockKeys.counter(item), StockKeys.generation(item),
                StockKeys.idempotency(item, "warm-1")))).isZero();
        assertThat(api().order(item, "late", 1).code()).isEqualTo("RESERVED_ITEM");
    }

    @Test
    void anOrderForTheWarmupItemWithoutTheWarmupsTicketIsRefusedAndTakesNothing() {
        String item = warmup.itemCode();
        warmupFixture.prepare(item, 10);
        try {
            var noTicket = api().order(item, "outsider", 1);
            var wrongTicket = api().order(item, "outsider", 1, WarmupTicket.HEADER, "0".repeat(32));

            for (var answer : List.of(noTicket, wrongTicket)) {
                assertThat(answer.status()).as("%s", answer).isEqualTo(409);
                assertThat(answer.code()).isEqualTo("RESERVED_ITEM");
            }
            assertThat(redisCounter(item)).isEqualTo(10);
            assertThat(orderCount(item)).isZero();
        } finally {
            warmupFixture.cleanUp(item);
        }
    }

    @Test
    void logsItsTuningOnceAtStartUp(CapturedOutput output) {
        assertThat(output.getAll()).containsOnlyOnce("tuning: jvm=")
                .contains("tomcat[", "hikari[maximumPoolSize=", "lettuce[ioThreads=");
    }

    private long outboxQuantity(String item) {
        return jdbc.sql("SELECT payload FROM outbox_event WHERE aggregate_key = ? AND event_type = ?")
                .params(item, StockDeducted.TYPE).query(String.class).list().stream()
                .mapToLong(payload -> jsonMapper.readValue(payload, StockDeducted.class).quantity()).sum();
    }


    @Test
    void anAuthorizationHeaderIsNoPurchaseTokenWhereNoTokenKeyIsSet() {
        String item = uniqueItem("plain-bearer");
        setStock(item, 5, null);

        var answer = api().order(item, "ann", 1, "Authorization", "Bearer gateway-session-abc");

        assertThat(answer.status()).as("%s", answer).isEqualTo(200);
        assertThat(redisCounter(item)).isEqualTo(4);
    }

    private double count(String name, String... tags) {
        return meters.get(name).tags(tags).counter().count();
    }
}
