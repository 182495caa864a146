package io.flashstock.order.placement.gate;

import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiOnRedisClusterTest;
import io.flashstock.order.RedisClusterNodes;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.stock.StockKeys;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Redis gate on a Redis Cluster, through the paths only a cluster has: a replica promoted (its counter refused
 * until rebuilt, its scripts missing), and the item's slot moved to another primary while orders are taken
 * ({@code MOVED}, {@code ASK}, and {@code TRYAGAIN} for a script whose keys are half moved). Whatever the path: no
 * unit taken twice, none sold from a counter that may have lost its last decrements.
 */
class StockGateOnRedisClusterIT extends OrderApiOnRedisClusterTest {

    private static final Logger log = LoggerFactory.getLogger(StockGateOnRedisClusterIT.class);
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    /** Long enough that the test finishes a move while a take waits, on a box loaded by other runs. */
    private static final Duration SLOT_MOVING_BUDGET = Duration.ofSeconds(4);

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        clusterInfrastructure(registry, "gate_cluster");
        registry.add("flashstock.order.in-doubt.abandoned-after", () -> "2s");
        registry.add("flashstock.order.redis.slot-moving-budget", SLOT_MOVING_BUDGET::toString);
    }

    @Autowired
    private RedisStockGate gate;
    @Autowired
    private TakenStock takenStock;
    @Autowired
    private MeterRegistry meters;

    @Test
    void anOrderInDoubtOfAnOrderApiThatIsGoneIsSettledThoughItsItemWasNotListed() {
        String item = uniqueItem("in-doubt");
        setStock(item, 5, null);
        var command = new OrderCommand(item, "ann", 2, null);
        var taken = (GateResult.Taken) gate.take(command, "lost-listing");
        // held in doubt by an order-api that is gone, and not listed in in-doubt:items: what a replica promoted
        // without the last SADD on that key's shard holds
        takenStock.holdInDoubt(new PlacedOrder("lost-listing", UUID.randomUUID(), command, taken.generation(),
                taken.loadEpoch(), taken.remaining(), Instant.now()), "an-order-api-that-is-gone");
        assertThat(redis.opsForSet().isMember(StockKeys.inDoubtItems(), item)).isFalse();
        assertThat(redisCounter(item)).isEqualTo(3);

        // never written: its units come back
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsInstanceOf(QueryTimeoutException.class)
                .until(() -> redisCounter(item), remaining -> remaining == 5);
        assertThat(redis.opsForHash().size(StockKeys.inDoubt(item))).isZero();
    }

    @Test
    void aPromotedReplicasCounterIsNotSoldFromUntilRebuiltAndItsMissingScriptsAreSent() {
        String item = uniqueItem("promoted");
        setStock(item, 10, null);
        for (int n = 0; n < 3; n++) {
            assertThat(api().order(item, "u" + n, 1).status()).isEqualTo(200);
        }
        int primary = nodes.primaryOf(RedisClusterNodes.slot(StockKeys.counter(item)));
        int replica = nodes.replicaOf(primary);
        await().atMost(DEADLINE).until(() -> nodes.info(replica, "replication").getProperty("slave_repl_offset")
                .equals(nodes.info(primary, "replication").getProperty("master_repl_offset")));
        long noScriptBefore = nodes.errors(replica, "NOSCRIPT");

        long takeover = System.nanoTime();
        nodes.call(replica, "cluster", "failover", "takeover");
        await().atMost(DEADLINE).until(() -> nodes.role(replica).equals("master")
                && nodes.role(primary).equals("slave"));

        // the promoted counter holds 7, as it should, but nothing says it saw every decrement: refused, rebuilt
        var first = api().order(item, "after", 1);
        assertThat(first.status()).as("%s", first).isEqualTo(503);
        assertThat(first.code()).isEqualTo("STOCK_RELOADING");
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(100))
                .until(() -> api().order(item, "after", 1).status() == 200);
        log.info("takeover to the first sale on the promoted node: {} ms",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - takeover));
        assertThat(redisCounter(item)).isEqualTo(10 - orderedQuantity(item)).isEqualTo(6);
        assertThat(nodes.errors(replica, "NOSCRIPT")).as("EVALSHA on the promoted node, which has no scripts")
                .isGreaterThan(noScriptBefore);
        assertThat(nodes.calls(replica, "eval")).as("the script's text sent instead").isPositive();
    }

    @Test
    void ordersAreTakenWhileTheItemsSlotMovesToAnotherPrimaryAndNoneTwice() throws Exception {
        String item = uniqueItem("moving");
        setStock(item, 100_000, null);
        int slot = RedisClusterNodes.slot(StockKeys.counter(item));
        int source = nodes.primaryOf(slot);
        int target = nodes.primaries().stream().filter(port -> port != source).findFirst().orElseThrow();
        var answers = new ConcurrentLinkedQueue<ApiClient.Answer>();
        var taking = new AtomicBoolean(true);
        var seq = new AtomicInteger();
        var slowest = new AtomicLong();
        var clients = new ArrayList<CompletableFuture<Void>>();
        for (int c = 0; c < 4; c++) {
            clients.add(CompletableFuture.runAsync(() -> {
                while (taking.get()) {
                    long start = System.nanoTime();
                    answers.add(api().order(item, "user-" + seq.incrementAndGet(), 1));
                    slowest.accumulateAndGet(System.nanoTime() - start, Math::max);
                }
            }));
        }
        await().atMost(DEADLINE).until(() -> answers.size() >= 20);

        long opened = System.nanoTime();
        open(slot, source, target);
        // a take names its own record, which does not exist yet: while the source holds the item's other keys it
        // answers TRYAGAIN; once they are all moved it sends the take on (ASK, which Lettuce follows with ASKING) to
        // the target, which cannot run it with the record missing either (TRYAGAIN) until the slot is its own
        await().atMost(DEADLINE).until(() -> tryAgains() > 0);
        moveKeys(slot, source, target);
        await().atMost(DEADLINE).until(() -> nodes.calls(target, "asking") > 0);
        close(slot, target);
        long closed = System.nanoTime();
        int moved = sold(answers);
        await().atMost(DEADLINE).until(() -> sold(answers) >= moved + 20);
        long resumed = System.nanoTime();
        taking.set(false);
        CompletableFuture.allOf(clients.toArray(CompletableFuture[]::new)).get(1, TimeUnit.MINUTES);

        log.info("slot {} migrating for {} ms, 20 more sales {} ms after; {} answers ({} sold), the slowest in {} ms: {}",
                slot, TimeUnit.NANOSECONDS.toMillis(closed - opened), TimeUnit.NANOSECONDS.toMillis(resumed - closed),
                answers.size(), sold(answers), TimeUnit.NANOSECONDS.toMillis(slowest.get()), answers.stream()
                        .collect(Collectors.groupingBy(a -> a.status() + " " + a.code(), Collectors.counting())));
        assertThat(nodes.primaryOf(slot)).isEqualTo(target);
        assertThat(nodes.rejectedCalls(source, "evalsha")).as("takes the source redirected (ASK, MOVED)")
                .isPositive();
        // refused while the slot moved, or while the moved counter was rebuilt; nothing else
        assertThat(answers).allSatisfy(answer -> assertThat(answer.status() == 200
                || answer.code().equals("STOCK_RELOADING")
                || answer.json().path("detail").asString().contains("being moved")).as("%s", answer).isTrue());
        assertThat(orderCount(item)).isEqualTo(sold(answers));
        assertThat(redisCounter(item)).isEqualTo(100_000 - orderedQuantity(item));
    }

    @Test
    void aTakeRefusedTryAgainIsSentAgainUntilTheSlotHasMovedAndTakesOnce() throws Exception {
        String item = uniqueItem("retried");
        setStock(item, 5, null);
        int slot = RedisClusterNodes.slot(StockKeys.counter(item));
        int source = nodes.primaryOf(slot);
        int target = nodes.primaries().stream().filter(port -> port != source).findFirst().orElseThrow();
        halfMove(item, slot, source, target);
        double retriedBefore = tryAgainCount("retried");
        double ranBefore = tryAgainCount("ran");

        var answer = CompletableFuture.supplyAsync(() -> api().order(item, "ann", 1));
        // the hook: the move is finished only once the take was refused TRYAGAIN and is being sent again
        await().atMost(DEADLINE).until(() -> tryAgainCount("retried") > retriedBefore || answer.isDone());
        assertThat(answer).as("answered before its take was sent again: %s", answer.getNow(null)).isNotDone();
        moveKeys(slot, source, target);
        close(slot, target);
        var first = answer.get(1, TimeUnit.MINUTES);

        // the take ran on the target once the slot was its own; the counter came with its old node's life, so it is
        // rebuilt first (as after a failover), not refused as a node that did not answer
        assertThat(first.code()).as("%s", first).isEqualTo("STOCK_RELOADING");
        assertThat(tryAgainCount("ran")).as("takes that ran after TRYAGAIN").isEqualTo(ranBefore + 1);
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(100))
                .until(() -> api().order(item, "ann", 1).status() == 200);
        assertThat(orderCount(item)).isEqualTo(1);
        assertThat(redisCounter(item)).isEqualTo(4);
    }

    @Test
    void aTakeOnASlotThatStaysHalfMovedIsA503AfterItsRetryBudgetWithNothingTaken() {
        String item = uniqueItem("half-moved");
        setStock(item, 5, null);
        int slot = RedisClusterNodes.slot(StockKeys.counter(item));
        int source = nodes.primaryOf(slot);
        int target = nodes.primaries().stream().filter(port -> port != source).findFirst().orElseThrow();
        halfMove(item, slot, source, target);
        double refusedBefore = tryAgainCount("refused");

        long start = System.nanoTime();
        var refused = api().order(item, "ann", 1);
        long refusedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        moveKeys(slot, source, target);
        close(slot, target);

        assertThat(refused.status()).as("%s", refused).isEqualTo(503);
        assertThat(refused.code()).isEqualTo("REDIS_UNAVAILABLE");
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        assertThat(refused.json().path("detail").asString()).contains("being moved", "nothing was taken");
        assertThat(tryAgainCount("refused")).as("takes refused TRYAGAIN past the budget")
                .isEqualTo(refusedBefore + 1);
        assertThat(refusedMillis).as("refused after the budget (ms)")
                .isBetween(SLOT_MOVING_BUDGET.toMillis() / 2, SLOT_MOVING_BUDGET.toMillis() + 5_000);
        assertThat(orderCount(item)).isZero();
        assertThat(redisCounter(item)).isEqualTo(5);
        // the counter moved with its life, the old node's: not trusted on its new node until rebuilt
        var afterMove = api().order(item, "ann", 1);
        assertThat(afterMove.code()).as("%s", afterMove).isEqualTo("STOCK_RELOADING");
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(100))
                .until(() -> api().order(item, "ann", 1).status() == 200);
        assertThat(orderCount(item)).isEqualTo(1);
        assertThat(redisCounter(item)).isEqualTo(4);
    }

    /**
     * The item's slot migrating, its counter alone moved to the target: a take's keys are split between the nodes,
     * so both refuse it {@code TRYAGAIN} until the move is finished.
     */
    private static void halfMove(String item, int slot, int source, int target) {
        open(slot, source, target);
        nodes.call(source, "migrate", "127.0.0.1", Integer.toString(target), StockKeys.counter(item), "0", "5000");
    }

    private double tryAgainCount(String outcome) {
        var counter = meters.find("flashstock.redis.tryagain").tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    private static int sold(Collection<ApiClient.Answer> answers) {
        return (int) answers.stream().filter(answer -> answer.status() == 200).count();
    }

    private long tryAgains() {
        return nodes.primaries().stream().mapToLong(port -> nodes.errors(port, "TRYAGAIN")).sum();
    }

    /** The first step of a slot migration, as {@code redis-cli --cluster reshard} takes it. */
    private static void open(int slot, int source, int target) {
        nodes.call(target, "cluster", "setslot", Integer.toString(slot), "importing", nodes.nodeId(source));
        nodes.call(source, "cluster", "setslot", Integer.toString(slot), "migrating", nodes.nodeId(target));
    }

    private static void moveKeys(int slot, int source, int target) {
        while (true) {
            String keys = nodes.call(source, "cluster", "getkeysinslot", Integer.toString(slot), "100");
            if (keys.isBlank()) {
                return;
            }
            var command = new ArrayList<>(List.of("migrate", "127.0.0.1", Integer.toString(target), "", "0", "5000",
                    "keys"));
            command.addAll(Arrays.asList(keys.split("\n")));
            nodes.call(source, command.toArray(String[]::new));
        }
    }

    /** The last step: the slot is the target's, told to the target first, then to every other primary. */
    private static void close(int slot, int target) {
        String targetId = nodes.nodeId(target);
        nodes.call(target, "cluster", "setslot", Integer.toString(slot), "node", targetId);
        for (int port : nodes.primaries()) {
            if (port != target) {
                nodes.call(port, "cluster", "setslot", Integer.toString(slot), "node", targetId);
            }
        }
    }
}
