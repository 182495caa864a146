package io.flashstock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Real servers of a test's own, started by {@code scripts/stack} in a private state folder on free ports:
 * for fault tests that stop and start the broker or the database, which must not disturb the servers that
 * other tests share. Needs the native binaries {@code scripts/stack up} installs (redis-server, mariadbd,
 * the Kafka jars).
 */
public final class PrivateStack implements AutoCloseable {

    private final Map<String, String> env = new HashMap<>();
    private final int redisPort = FreePort.find();
    private final int mysqlPort = FreePort.find();
    private final int kafkaPort = FreePort.find();
    private final int kafkaControllerPort = FreePort.find();

    private PrivateStack(Path state) {
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
        try {
            return new PrivateStack(Files.createTempDirectory("flashstock-" + name + "-"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts one of {@code redis}, {@code mariadb}, {@code kafka} and waits until it is healthy. */
    public PrivateStack start(String component) {
        TestInfrastructure.runStack(env, "start", component);
        return this;
    }

    public PrivateStack stop(String component) {
        TestInfrastructure.runStack(env, "stop", component);
        return this;
    }

    public int redisPort() {
        return redisPort;
    }

    public String kafkaBootstrapServers() {
        return "127.0.0.1:" + kafkaPort;
    }

    public String jdbcUrl(String database) {
        return "jdbc:mysql://127.0.0.1:" + mysqlPort + "/" + database + "?useSSL=false&allowPublicKeyRetrieval=true";
    }

    @Override
    public void close() {
        TestInfrastructure.runStack(env, "down");
    }
}
