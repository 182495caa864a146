package io.flashstock.stock.locking;

import io.flashstock.contract.StockEvent;
import io.flashstock.stock.ledger.LedgerOutcome;
import io.flashstock.stock.ledger.StockLedger;
import io.flashstock.stock.support.Events;
import io.flashstock.stock.support.StockDatabase;
import io.flashstock.stock.support.StockTopic;
import io.flashstock.testsupport.TestInfrastructure;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.flashstock.stock.support.Events.deducted;
import static io.flashstock.stock.support.Events.reset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A batch that outlives its item lock's lease, with a real Redis and a real database. The lock is taken with a fixed
 * lease, so Redisson's watchdog does not renew it: a second batch of the same item then runs while the first one's
 * transaction is still open. What keeps the ledger exact is the database (the {@code processed_event} key, the
 * conditional updates), and that is what this checks, in the worst order: the second batch inserts the same event
 * ids while the first one has inserted them and not committed.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ItemLockLeaseExpiryIT {

    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String DATABASE = TestInfrastructure.get().createDatabase("stock_lease");
    private static StockTopic topic;

    @Autowired
    ItemLocks locks;

    @Autowired
    RedissonClient redisson;

    @Autowired
    StockLedger ledger;

    @Autowired
    PlatformTransactionManager transactions;

    private final StockDatabase db = new StockDatabase(TestInfrastructure.get().jdbcUrl(DATABASE));
    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        topic = StockTopic.create("stock-lease-it", 1);
        var infra = TestInfrastructure.get();
        infra.registerRedisAndKafka(registry);
        infra.registerDataSource(registry, DATABASE);
        registry.add("flashstock.consumer.topic", topic::name);
        registry.add("spring.kafka.listener.auto-startup", () -> "false");
        registry.add("flashstock.lock.lease-time", () -> "1s");
    }

    @AfterAll
    void tearDown() {
        threads.shutdownNow();
        topic.close();
    }

    @Test
    void aBatchThatOutlivesItsLeaseRunsBesideTheNextOneAndTheLedgerAppliesItsEventsOnce() throws Exception {
        String item = Events.item("lease");
        ledger.apply(List.of(reset(item, 100, 1)));
        List<StockEvent> batch = List.of(deducted(item, 2, 1), deducted(item, 3, 1));
        RLock lock = redisson.getLock(RedissonItemLocks.lockKey(item));
        var firstApplied = new CountDownLatch(1);
        var firstMayCommit = new CountDownLatch(1);

        Future<LedgerOutcome> first = threads.submit(() -> locks.callLocked(Set.of(item), () -> inOneTransaction(() -> {
            LedgerOutcome outcome = ledger.apply(batch);
            firstApplied.countDown();
            block(firstMayCommit);
            return outcome;
        })));
        assertThat(firstApplied.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        await("the first batch's lease runs out while it works: nothing renews it").atMost(DEADLINE)
                .until(() -> !lock.isLocked());

        Future<LedgerOutcome> second = threads.submit(() -> locks.callLocked(Set.of(item), () -> ledger.apply(batch)));
        await("the second batch holds the lock and waits in the database for the first one's rows").atMost(DEADLINE)
                .until(() -> lock.isLocked() && lockWaits() > 0);
        firstMayCommit.countDown();

        assertThat(first.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).applied()).hasSize(2);
        assertThatThrownBy(() -> second.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(DuplicateKeyException.class);
        assertThat(lock.isLocked()).as("each batch released only its own lock").isFalse();
        // the listener's retry of the second batch finds every event processed
        assertThat(locks.callLocked(Set.of(item), () -> ledger.apply(batch)).duplicates()).isEqualTo(2);
        assertThat(db.level(item)).containsEntry("quantity", 95L).containsEntry("events_applied", 2L);
        assertThat(db.count("processed_event")).isEqualTo(3);
    }

    /** The ledger's transaction joins this one, so the first batch's rows stay uncommitted until the work returns. */
    private <T> T inOneTransaction(java.util.function.Supplier<T> work) {
        var template = new TransactionTemplate(transactions);
        template.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        return template.execute(status -> work.get());
    }

    /**
     * Inserts into processed_event running in this test's database: the first batch's insert has returned, so one
     * still running is the second batch's, waiting for the first one's rows. (Our own sessions are visible here
     * without the PROCESS privilege that the InnoDB lock tables need.)
     */
    private long lockWaits() {
        Long waits = db.jdbc().queryForObject("""
                SELECT COUNT(*) FROM information_schema.processlist
                 WHERE db = ? AND command = 'Query' AND info LIKE 'INSERT INTO processed_event%'""",
                Long.class, DATABASE);
        return waits == null ? 0 : waits;
    }

    private static void block(CountDownLatch latch) {
        try {
            if (!latch.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released within " + DEADLINE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
