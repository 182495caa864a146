package io.flashstock.order.queue;

import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiOnRedisClusterTest;
import io.flashstock.order.RedisClusterNodes;
import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.StockKeys;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The waiting room on a Redis Cluster: an item's room depends on its own slot's shard only, not on a key of all
 * rooms ({@code queue:items}, before issue 26) that lives on one shard, so that losing a write on, or the whole of,
 * another shard stops no room's admissions.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WaitingRoomOnRedisClusterIT extends OrderApiOnRedisClusterTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);
    /** The key of all rooms before issue 26; its slot's shard is the one these tests take away. */
    private static final String OLD_INDEX = "queue:items";

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        clusterInfrastructure(registry, "queue_cluster");
        registry.add("flashstock.queue.tick", () -> "100ms");
        registry.add("flashstock.queue.admission-ttl", () -> "2s");
    }

    @Test
    @Order(1)
    void aRoomIsStillTickedWhenAWriteOutsideItsSlotIsLost() {
        String item = uniqueItem("q-lost");
        setStock(item, 1, null, Gate.QUEUE);
        String ann = entered(item, "ann");
        awaitStatus(ann, "ADMITTED");
        // ann's admission holds the only unit: ben waits at the head until it ends unused
        String ben = entered(item, "ben");
        assertThat(poll(ben)).isEqualTo("WAITING");

        // what a replica promoted without the last writes of another shard would hold: nothing of them
        redis.delete(OLD_INDEX);

        awaitStatus(ann, "EXPIRED");
        awaitStatus(ben, "ADMITTED");
        var order = api().order(item, "ben", 1, Admission.HEADER, ben);
        assertThat(order.status()).as("%s", order).isEqualTo(200);
    }

    @Test
    @Order(2)
    void roomsOnTheOtherShardsEnterAndAdmitWhileOneShardIsDown() {
        int downPrimary = nodes.primaryOf(RedisClusterNodes.slot(OLD_INDEX));
        int downReplica = nodes.replicaOf(downPrimary);
        List<String> items = IntStream.range(0, 100).mapToObj(n -> uniqueItem("q-shard"))
                .filter(item -> nodes.primaryOf(RedisClusterNodes.slot(StockKeys.counter(item))) != downPrimary)
                .limit(4).toList();
        items.forEach(item -> setStock(item, 2, null, Gate.QUEUE));

        // the replica first, so that nothing is promoted: the shard stays down
        nodes.call(downReplica, "shutdown", "nosave");
        nodes.call(downPrimary, "shutdown", "nosave");

        for (String item : items) {
            var entry = api().post(GateEndpoints.QUEUE, ApiClient.orderJson(item, "cid", 1));
            assertThat(entry.status()).as("an entry to %s, on a live shard: %s", item, entry).isEqualTo(201);
            awaitStatus(entry.json().path("ticket").asString(), "ADMITTED");
        }
    }

    private String entered(String item, String user) {
        var entry = api().post(GateEndpoints.QUEUE, ApiClient.orderJson(item, user, 1));
        assertThat(entry.status()).as("%s", entry).isEqualTo(201);
        return entry.json().path("ticket").asString();
    }

    private String poll(String ticket) {
        return api().get(GateEndpoints.QUEUE + "/" + ticket).json().path("status").asString();
    }

    private void awaitStatus(String ticket, String status) {
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(50)).until(() -> poll(ticket), status::equals);
    }
}
