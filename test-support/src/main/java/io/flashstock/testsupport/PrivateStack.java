package io.flashstock.testsupport;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.util.FileSystemUtils;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Real servers of a test's own, started by {@code scripts/stack} in a private state folder on free ports:
 * for fault tests that stop and start the broker or the database, which must not disturb the servers that
 * other tests share. Needs the native binaries {@code scripts/stack up} installs (redis-server, mariadbd,
 * the Kafka jars). Registered as a test class's extension ({@code @RegisterExtension static final PrivateStack STACK =
 * PrivateStack.create("…").startingBeforeAll("redis", "mariadb")}) it starts those before the class's tests, before
 * its {@code @BeforeAll} methods, and is removed after them, after its {@code @AfterAll} methods.
 */
public final class PrivateStack implements AutoCloseable, BeforeAllCallback, AfterAllCallback {

    /** The cluster topology's Redis nodes; their cluster buses listen on as many ports after theirs. */
    private static final int REDIS_CLUSTER_NODES = 6;

    private final Map<String, String> env = new HashMap<>();
    private final Path state;
    private final int redisPort;
    private final int mysqlPort = FreePort.find();
    private final int mysqlReplicaPort = FreePort.find();
    private final int kafkaPort = FreePort.find();
    private final int kafkaControllerPort = FreePort.find();
    private List<String> startedBeforeAll = List.of();

    private PrivateStack(Path state, int redisPort) {
        this.state = state;
        this.redisPort = redisPort;
        env.put("FLASHSTOCK_STATE", state.toString());
        env.put("REDIS_PORT", Integer.toString(redisPort));
        env.put("MYSQL_PORT", Integer.toString(mysqlPort));
        env.put("KAFKA_PORT", Integer.toString(kafkaPort));
        env.put("KAFKA_CONTROLLER_PORT", Integer.toString(kafkaControllerPort));
        env.put("KAFKA_HEAP", "384m");
        Path sharedClasspath = TestInfrastructure.repositoryRoot().resolve(".stack/kafka/classpath.txt");
        if (Files.isRegularFile(sharedClasspath)) {
            env.put("KAFKA_CLASSPATH_FILE", sharedClasspath.toString());
        }
    }

    /** A private stack with nothing started yet; its state lives in a temporary folder. */
    public static PrivateStack create(String name) {
        return new PrivateStack(stateFolder(name), FreePort.find());
    }

    /**
     * A private stack of {@code scripts/stack}'s cluster topology with nothing started yet, whose {@code redis} is a
     * Redis Cluster of 3 primaries and 3 replicas on six consecutive ports ({@link #redisClusterNodes()}).
     */
    public static PrivateStack cluster(String name) {
        var stack = new PrivateStack(stateFolder(name), FreePort.range(2 * REDIS_CLUSTER_NODES));
        stack.env.put("FLASHSTOCK_TOPOLOGY", "cluster");
        stack.env.put("REDIS_CLUSTER_BUS_OFFSET", Integer.toString(REDIS_CLUSTER_NODES));
        return stack;
    }

    /**
     * A private stack whose database is {@code scripts/stack}'s replicated one ({@code up --db-replica}): a primary
     * {@code mariadb} and its semi-synchronous replica {@code mariadb-2} (start both, the primary first).
     */
    public static PrivateStack withDbReplica(String name) {
        var stack = new PrivateStack(stateFolder(name), FreePort.find());
        stack.env.put("FLASHSTOCK_DB_REPLICA", "on");
        stack.env.put("MYSQL_REPLICA_PORT", Integer.toString(stack.mysqlReplicaPort));
        return stack;
    }

    private static Path stateFolder(String name) {
        try {
            return Files.createTempDirectory("flashstock-" + name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The temporary folder its servers keep their data, logs and pid files in, until {@link #close()}. */
    public Path stateFolder() {
        return state;
    }

    /** The components the extension starts before the test class's tests, in this order. */
    public PrivateStack startingBeforeAll(String... components) {
        startedBeforeAll = List.of(components);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        startedBeforeAll.forEach(this::start);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /**
     * Starts one of {@code redis}, {@code mariadb}, {@code kafka} and waits until it is healthy (in the cluster
     * topology {@code redis} is the whole Redis Cluster, {@code kafka} the three brokers).
     */
    public PrivateStack start(String component) {
        TestInfrastructure.runStack(env, "start", component);
        return this;
    }

    public PrivateStack stop(String component) {
        TestInfrastructure.runStack(env, "stop", component);
        return this;
    }

    /** {@code scripts/stack kill}: SIGKILL of one component, as a crash would. */
    public PrivateStack kill(String component) {
        TestInfrastructure.runStack(env, "kill", component);
        return this;
    }

    /** {@code scripts/stack db-failover}: the primary fenced, the replica promoted. */
    public PrivateStack dbFailover() {
        TestInfrastructure.runStack(env, "db-failover");
        return this;
    }

    public int redisPort() {
        return redisPort;
    }

    /** The cluster topology's Redis nodes, {@code host:port,...}: the value of spring.data.redis.cluster.nodes. */
    public String redisClusterNodes() {
        return IntStream.range(0, REDIS_CLUSTER_NODES).mapToObj(n -> "127.0.0.1:" + (redisPort + n))
                .collect(Collectors.joining(","));
    }

    public String kafkaBootstrapServers() {
        return "127.0.0.1:" + kafkaPort;
    }

    public String jdbcUrl(String database) {
        return "jdbc:mysql://127.0.0.1:" + mysqlPort + "/" + database + "?useSSL=false&allowPublicKeyRetrieval=true";
    }

    /** The port of {@code mariadb-2}, the replica until a failover promotes it ({@link #withDbReplica}). */
    public int mysqlReplicaPort() {
        return mysqlReplicaPort;
    }

    /** The replica's address, {@code mariadb-2} ({@link #withDbReplica}). */
    public String replicaJdbcUrl(String database) {
        return "jdbc:mysql://127.0.0.1:" + mysqlReplicaPort + "/" + database + "?useSSL=false&allowPublicKeyRetrieval=true";
    }

    /** The failover URL of both nodes that {@code scripts/stack} gives the services ({@link #withDbReplica}). */
    public String failoverJdbcUrl(String database) {
        return "jdbc:mysql://127.0.0.1:" + mysqlPort + ",127.0.0.1:" + mysqlReplicaPort + "/" + database
                + "?failOverReadOnly=false&secondsBeforeRetrySource=0&queriesBeforeRetrySource=0&retriesAllDown=2"
                + "&useSSL=false&allowPublicKeyRetrieval=true";
    }

    /** Stops its servers and removes their state: a suite's private stacks left ~3 GB in /tmp per run. */
    @Override
    public void close() {
        TestInfrastructure.runStack(env, "down");
        try {
            FileSystemUtils.deleteRecursively(state);
        } catch (IOException e) {
            throw new UncheckedIOException("the private stack's state " + state + " could not be removed", e);
        }
    }
}
