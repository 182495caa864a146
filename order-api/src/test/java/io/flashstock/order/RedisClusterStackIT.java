package io.flashstock.order;

import io.flashstock.testsupport.PrivateStack;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis Cluster scripts/stack hands over is whole: every replica holds its primary's data and has written its
 * own AOF. A replica rewriting the AOF its first sync began refuses {@code SHUTDOWN} ("Writing initial AOF, can't
 * exit"), and one before that sync cannot be promoted, so a test that stopped or failed over a shard right after
 * the start failed at random (CI on bd60dc5).
 */
class RedisClusterStackIT {

    private static PrivateStack cluster;
    private static RedisClusterNodes nodes;

    @BeforeAll
    static void start() {
        cluster = PrivateStack.cluster("stack_whole").start("redis");
        nodes = new RedisClusterNodes(cluster);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void everyReplicaHasSyncedAndWrittenItsAofWhenTheStackSaysUp() {
        var replicas = nodes.ports().stream().filter(port -> nodes.role(port).equals("slave")).toList();
        assertThat(replicas).hasSize(3);
        for (int replica : replicas) {
            Properties replication = nodes.info(replica, "replication");
            Properties persistence = nodes.info(replica, "persistence");
            assertThat(replication.getProperty("master_link_status")).as("replica %d's link", replica).isEqualTo("up");
            assertThat(persistence.getProperty("aof_rewrite_in_progress")).as("replica %d", replica).isEqualTo("0");
            assertThat(persistence.getProperty("aof_rewrite_scheduled")).as("replica %d", replica).isEqualTo("0");
        }
    }
}
