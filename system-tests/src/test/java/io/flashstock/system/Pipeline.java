package io.flashstock.system;

import io.flashstock.testsupport.FreePort;
import io.flashstock.testsupport.KafkaTopics;
import io.flashstock.testsupport.ServiceProcess;
import io.flashstock.testsupport.TestInfrastructure;
import org.apache.kafka.clients.admin.NewTopic;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The three services as built jars, wired to databases, a topic and a consumer group of their own on the
 * shared Redis, MariaDB and Kafka, so a test sees only its own orders and events.
 */
final class Pipeline implements AutoCloseable {

    static final String ADMIN_TOKEN = "system-test-token";
    private static final Duration READY = Duration.ofSeconds(120);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final TestInfrastructure infra = TestInfrastructure.get();
    private final HttpClient http = HttpClient.newHttpClient();
    private final String ordersDb = infra.createDatabase("orders");
    private final String stockDb = infra.createDatabase("stock");
    private final String topic = "stock-events-" + UUID.randomUUID().toString().substring(0, 8);
    private final String group = "stock-consumer-" + topic;
    private final Map<String, String> baseEnv;
    ServiceProcess orderApi;
    ServiceProcess relay;
    final ServiceProcess consumer;

    Pipeline(Map<String, String> orderApiEnv) {
        createTopics();
        int consumerPort = FreePort.find();
        Map<String, String> common = new HashMap<>(Map.of(
                "ORDERS_DB_URL", infra.jdbcUrl(ordersDb),
                "STOCK_DB_URL", infra.jdbcUrl(stockDb),
                "DB_USER", infra.dbUser(),
                "DB_PASSWORD", infra.dbPassword(),
                "REDIS_HOST", infra.redisHost(),
                "REDIS_PORT", Integer.toString(infra.redisPort()),
                "KAFKA_BOOTSTRAP_SERVERS", infra.kafkaBootstrapServers(),
                "STOCK_TOPIC", topic,
                "SPRING_KAFKA_CONSUMER_GROUP_ID", group,
                "STOCK_CONSUMER_GROUP", group));
        common.put("STOCK_ADMIN_TOKEN", ADMIN_TOKEN);
        common.put("STOCK_CONSUMER_URL", "http://127.0.0.1:" + consumerPort);
        baseEnv = common;
        consumer = ServiceProcess.of("stock-consumer", consumerPort, List.of(), common).start();
        relay = start("outbox-relay", Map.of());
        orderApi = startOrderApi(orderApiEnv);
        try {
            consumer.awaitReady(READY);
            relay.awaitReady(READY);
            orderApi.awaitReady(READY);
        } catch (RuntimeException e) {
            // no test holds this pipeline yet to close it: the three JVMs would outlive the test run
            close();
            throw e;
        }
    }

    /**
     * Stops order-api and starts it again with other settings; does not wait for readiness, so a test can
     * watch what happens before it.
     */
    ServiceProcess restartOrderApi(Map<String, String> settings) {
        orderApi.close();
        orderApi = startOrderApi(settings);
        return orderApi;
    }

    /** Stops outbox-relay and starts it again with other settings; does not wait for readiness. */
    ServiceProcess restartRelay(Map<String, String> settings) {
        relay.close();
        relay = start("outbox-relay", settings);
        return relay;
    }

    /** order-api, told where outbox-relay is, so that its dashboard can read the relay's metrics. */
    private ServiceProcess startOrderApi(Map<String, String> settings) {
        Map<String, String> env = new HashMap<>(settings);
        env.putIfAbsent("OUTBOX_RELAY_URL", "http://127.0.0.1:" + relay.port());
        return start("order-api", env);
    }

    private ServiceProcess start(String service, Map<String, String> settings) {
        Map<String, String> env = new HashMap<>(baseEnv);
        env.putAll(settings);
        return ServiceProcess.of(service, FreePort.find(), List.of(), env).start();
    }

    private void createTopics() {
        KafkaTopics.create(infra.kafkaBootstrapServers(),
                List.of(new NewTopic(topic, 3, (short) 1), new NewTopic(topic + "-dlt", 3, (short) 1)));
    }

    String orderApiUrl() {
        return "http://127.0.0.1:" + orderApi.port();
    }

    /** Sets an item's stock through the admin endpoint and waits until the stock database has the reset. */
    void resetStock(String itemCode, long quantity) {
        var response = send(HttpRequest.newBuilder(URI.create(orderApiUrl() + "/admin/items/" + itemCode + "/stock"))
                .header("Authorization", "Bearer " + ADMIN_TOKEN).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"quantity\":" + quantity + "}")).build());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("reset of " + itemCode + " answered " + response.statusCode() + ": "
                    + response.body());
        }
    }

    /** POSTs one order; returns the HTTP status. */
    int order(String itemCode, int quantity) {
        String body = "{\"itemCode\":\"" + itemCode + "\",\"userId\":\"" + UUID.randomUUID() + "\",\"quantity\":"
                + quantity + "}";
        // a key makes the order safe to send again (see send)
        return send(HttpRequest.newBuilder(URI.create(orderApiUrl() + "/order/stock/limit"))
                .header("Content-Type", "application/json").header("Idempotency-Key", UUID.randomUUID().toString())
                .POST(HttpRequest.BodyPublishers.ofString(body)).build())
                .statusCode();
    }

    /** What stock-consumer says of an item, or null while it does not know it. */
    JsonNode stockItem(String itemCode) {
        var response = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + consumer.port()
                + "/stock/items/" + itemCode)).GET().build());
        return response.statusCode() == 200 ? JSON.readTree(response.body()) : null;
    }

    /** Changes the pipeline's stock database by hand (a divergence made on purpose). */
    void updateStockDatabase(String sql, Object... params) {
        onDatabase(stockDb, sql, params, java.sql.PreparedStatement::executeUpdate);
    }

    /** Changes the pipeline's orders database by hand (a DEAD row made on purpose). */
    void updateOrdersDatabase(String sql, Object... params) {
        onDatabase(ordersDb, sql, params, java.sql.PreparedStatement::executeUpdate);
    }

    long countInOrders(String sql, Object... params) {
        return onDatabase(ordersDb, sql, params, Pipeline::singleLong);
    }

    long countInStock(String sql, Object... params) {
        return onDatabase(stockDb, sql, params, Pipeline::singleLong);
    }

    private interface StatementWork<T> {
        T run(java.sql.PreparedStatement statement) throws SQLException;
    }

    private <T> T onDatabase(String database, String sql, Object[] params, StatementWork<T> work) {
        try (Connection c = DriverManager.getConnection(infra.jdbcUrl(database), infra.dbUser(), infra.dbPassword());
             var statement = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                statement.setObject(i + 1, params[i]);
            }
            return work.run(statement);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed on " + database, e);
        }
    }

    private static boolean safeToRepeat(HttpRequest request) {
        return request.method().equals("GET") || request.headers().firstValue("Idempotency-Key").isPresent();
    }

    private static long singleLong(java.sql.PreparedStatement statement) throws SQLException {
        try (var rs = statement.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    HttpResponse<String> send(HttpRequest request) {
        try {
            try {
                return http.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                // a pooled connection that Tomcat closed as idle just as it was reused (its keep-alive timeout is
                // 5 s) ends with no bytes; a request that is safe to repeat is sent once more, on a new connection
                if (!safeToRepeat(request)) {
                    throw e;
                }
                return http.send(request, HttpResponse.BodyHandlers.ofString());
            }
        } catch (IOException e) {
            throw new IllegalStateException(request.uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        orderApi.close();
        relay.close();
        consumer.close();
    }
}
