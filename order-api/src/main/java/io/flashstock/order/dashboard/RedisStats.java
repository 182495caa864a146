package io.flashstock.order.dashboard;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.function.Function;
import java.util.stream.StreamSupport;

/**
 * Redis's memory and CPU seconds from {@code INFO memory} and {@code INFO cpu}: two small commands; on a Redis Cluster
 * to every node, with {@code INFO replication} for its role, and summed ({@code INFO} through the cluster connection
 * names each field after its node, so that {@code used_memory} alone is found in none).
 */
class RedisStats {

    private final StringRedisTemplate redis;

    RedisStats(StringRedisTemplate redis) {
        this.redis = redis;
    }

    Reading read() {
        try {
            return redis.execute((RedisCallback<Reading>) connection -> connection instanceof RedisClusterConnection
                    cluster ? readCluster(cluster) : Reading.of(List.of(),
                    readNode(null, connection.serverCommands()::info)));
        } catch (DataAccessException | NumberFormatException e) {
            return new Reading(null, null, "Redis did not answer INFO: " + e.getMessage(), List.of());
        }
    }

    private static Reading readCluster(RedisClusterConnection cluster) {
        var nodes = new ArrayList<NodeReading>();
        StreamSupport.stream(cluster.clusterGetNodes().spliterator(), false)
                .sorted(Comparator.comparing(RedisClusterNode::getHost).thenComparing(RedisClusterNode::getPort))
                .forEach(node -> {
                    String address = node.getHost() + ":" + node.getPort();
                    try {
                        Function<String, Properties> info = section -> cluster.serverCommands().info(node, section);
                        NodeReading read = readNode(address, info);
                        // the node's own word: the topology a client holds may be seconds old after a failover
                        String role = "slave".equals(info.apply("replication").getProperty("role"))
                                ? "replica" : "primary";
                        nodes.add(new NodeReading(address, role, read.memoryBytes(), read.cpuSeconds(), null));
                    } catch (DataAccessException | NumberFormatException e) {
                        nodes.add(new NodeReading(address, node.isReplica() ? "replica" : "primary", null, null,
                                "did not answer INFO: " + e.getMessage()));
                    }
                });
        return Reading.of(nodes, null);
    }

    private static NodeReading readNode(String address, Function<String, Properties> info) {
        Properties memory = info.apply("memory");
        Properties cpu = info.apply("cpu");
        double cpuSeconds = Double.parseDouble(cpu.getProperty("used_cpu_user", "0"))
                + Double.parseDouble(cpu.getProperty("used_cpu_sys", "0"));
        return new NodeReading(address, null, Long.parseLong(memory.getProperty("used_memory", "0")), cpuSeconds, null);
    }

    /**
     * Used memory in bytes and the CPU seconds Redis has used since it started, or why not: of the one Redis, or the
     * sum of a cluster's nodes that answered, each of which is in {@code nodes} (empty for one Redis).
     */
    record Reading(Long memoryBytes, Double cpuSeconds, String problem, List<NodeReading> nodes) {

        private static Reading of(List<NodeReading> nodes, NodeReading single) {
            if (single != null) {
                return new Reading(single.memoryBytes(), single.cpuSeconds(), null, List.of());
            }
            var answered = nodes.stream().filter(node -> node.problem() == null).toList();
            if (answered.isEmpty()) {
                return new Reading(null, null, "no node of the Redis Cluster answered INFO", nodes);
            }
            long down = nodes.size() - answered.size();
            return new Reading(answered.stream().mapToLong(NodeReading::memoryBytes).sum(),
                    answered.stream().mapToDouble(NodeReading::cpuSeconds).sum(),
                    down == 0 ? null : down + " of " + nodes.size() + " nodes did not answer", nodes);
        }
    }

    /** One node of a Redis Cluster: its address, its role (primary or replica), what it said or why not. */
    record NodeReading(String address, String role, Long memoryBytes, Double cpuSeconds, String problem) {
    }
}
