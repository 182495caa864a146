package io.flashstock.testsupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.mysql.MySQLContainer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Where the real Redis, MySQL-compatible database and Kafka broker of the integration tests are.
 * <p>
 * With a Docker engine (and {@code FLASHSTOCK_TESTCONTAINERS} not {@code false}) it starts redis:7,
 * mysql:8.4 and apache/kafka once per JVM. Otherwise it uses the services {@code scripts/stack up}
 * started, on the ports that script uses ({@code REDIS_PORT}, {@code MYSQL_PORT}, {@code KAFKA_PORT}).
 * Never an in-memory stand-in. Tests that stop a server use {@link PrivateStack} instead, so they never
 * disturb the servers other tests share.
 */
public final class TestInfrastructure {

    private static final Logger log = LoggerFactory.getLogger(TestInfrastructure.class);
    private static final String USER = env("DB_USER", "flashstock");
    private static final String PASSWORD = env("DB_PASSWORD", "flashstock");

    private static volatile TestInfrastructure instance;

    private final Mode mode;
    private final String redisHost;
    private final int redisPort;
    private final String mysqlHost;
    private final int mysqlPort;
    private final String kafkaBootstrap;

    private enum Mode { TESTCONTAINERS, STACK }

    private TestInfrastructure(Mode mode, String redisHost, int redisPort, String mysqlHost, int mysqlPort,
                               String kafkaBootstrap) {
        this.mode = mode;
        this.redisHost = redisHost;
        this.redisPort = redisPort;
        this.mysqlHost = mysqlHost;
        this.mysqlPort = mysqlPort;
        this.kafkaBootstrap = kafkaBootstrap;
    }

    public static TestInfrastructure get() {
        if (instance == null) {
            synchronized (TestInfrastructure.class) {
                if (instance == null) {
                    instance = useContainers() ? startContainers() : stack();
                    log.info("integration tests use {}: redis {}:{}, database {}:{}, kafka {}", instance.mode,
                            instance.redisHost, instance.redisPort, instance.mysqlHost, instance.mysqlPort,
                            instance.kafkaBootstrap);
                }
            }
        }
        return instance;
    }

    private static boolean useContainers() {
        if ("false".equalsIgnoreCase(System.getenv("FLASHSTOCK_TESTCONTAINERS"))) {
            return false;
        }
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static TestInfrastructure stack() {
        return new TestInfrastructure(Mode.STACK, "127.0.0.1", Integer.parseInt(env("REDIS_PORT", "6379")),
                "127.0.0.1", Integer.parseInt(env("MYSQL_PORT", "3306")),
                "127.0.0.1:" + env("KAFKA_PORT", "9092"));
    }

    @SuppressWarnings("resource")
    private static TestInfrastructure startContainers() {
        var redis = new GenericContainer<>("redis:7").withExposedPorts(6379);
        var mysql = new MySQLContainer("mysql:8.4").withUsername(USER).withPassword(PASSWORD)
                .withDatabaseName("orders");
        var kafka = new KafkaContainer(version("kafka.image"));
        List<GenericContainer<?>> all = List.of(redis, mysql, kafka);
        all.parallelStream().forEach(GenericContainer::start);
        var infra = new TestInfrastructure(Mode.TESTCONTAINERS, redis.getHost(), redis.getMappedPort(6379),
                mysql.getHost(), mysql.getMappedPort(3306), kafka.getBootstrapServers());
        try (Connection c = DriverManager.getConnection(infra.jdbcUrl("mysql"), "root", PASSWORD);
             Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE IF NOT EXISTS stock");
            s.execute("GRANT ALL PRIVILEGES ON *.* TO '" + USER + "'@'%'");
        } catch (SQLException e) {
            throw new IllegalStateException("could not prepare the MySQL container", e);
        }
        return infra;
    }

    /**
     * An entry of {@code versions.properties}, which Maven fills in from the root pom, so that the broker the
     * containers run is the one the stack and compose run ({@code kafka-broker.version}).
     */
    static String version(String key) {
        var properties = new Properties();
        try (InputStream in = TestInfrastructure.class.getResourceAsStream("versions.properties")) {
            if (in == null) {
                throw new IllegalStateException("versions.properties is missing from test-support's classpath");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String value = properties.getProperty(key);
        if (value == null || value.contains("@")) {
            throw new IllegalStateException("versions.properties has no filtered " + key + ": " + value);
        }
        return value;
    }

    public String redisHost() {
        return redisHost;
    }

    public int redisPort() {
        return redisPort;
    }

    public String kafkaBootstrapServers() {
        return kafkaBootstrap;
    }

    public String dbUser() {
        return USER;
    }

    public String dbPassword() {
        return PASSWORD;
    }

    public String jdbcUrl(String database) {
        return "jdbc:mysql://" + mysqlHost + ":" + mysqlPort + "/" + database
                + "?useSSL=false&allowPublicKeyRetrieval=true";
    }

    /**
     * A fresh, empty database for one test class, so tests that count rows do not see each other's.
     * Named {@code test_<prefix>_<random>}; the stack grants the application user rights on {@code test_%}.
     */
    public String createDatabase(String prefix) {
        String name = ("test_" + prefix + "_" + UUID.randomUUID().toString().substring(0, 8))
                .toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        try (Connection c = DriverManager.getConnection(jdbcUrl(""), USER, PASSWORD);
             Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + name + " at " + jdbcUrl(""), e);
        }
        return name;
    }

    /** Registers Redis and Kafka connection settings under Spring Boot's own property names. */
    public void registerRedisAndKafka(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", this::redisHost);
        registry.add("spring.data.redis.port", this::redisPort);
        registry.add("spring.kafka.bootstrap-servers", this::kafkaBootstrapServers);
    }

    /** Registers {@code spring.datasource.*} for the given database. */
    public void registerDataSource(DynamicPropertyRegistry registry, String database) {
        registry.add("spring.datasource.url", () -> jdbcUrl(database));
        registry.add("spring.datasource.username", this::dbUser);
        registry.add("spring.datasource.password", this::dbPassword);
    }

    /** Runs {@code scripts/stack ARGS} of this checkout and fails the test if it fails. */
    public static void runStack(String... args) {
        runStack(java.util.Map.of(), args);
    }

    /** Runs {@code scripts/stack ARGS} with extra environment (ports, state folder). */
    public static void runStack(java.util.Map<String, String> env, String... args) {
        Path script = repositoryRoot().resolve("scripts/stack");
        var command = new java.util.ArrayList<String>();
        command.add(script.toString());
        command.addAll(List.of(args));
        try {
            var builder = new ProcessBuilder(command).inheritIO();
            builder.environment().putAll(env);
            Process p = builder.start();
            if (!p.waitFor(3, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException("scripts/stack " + String.join(" ", args) + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not run " + script, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The checkout's root: the nearest folder above the working directory that holds scripts/stack. */
    public static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("scripts/stack"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no scripts/stack above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
