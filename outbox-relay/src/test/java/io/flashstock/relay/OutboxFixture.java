package io.flashstock.relay;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.testsupport.TestInfrastructure;
import org.flywaydb.core.Flyway;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * A test's own orders database: writes outbox rows the way order-api does (plain JDBC, UTC) and reads back
 * what the relay did to them. For a relay test ({@link #forRelay}), also the test's own topic and the relays it
 * starts, all ended by {@link #close}. Instants are bound as text with microseconds: bound as timestamps, MySQL
 * Connector/J would cut them to whole seconds on MariaDB.
 */
public final class OutboxFixture implements AutoCloseable {

    private static final int ROWS_PER_INSERT = 1000;
    private static final DateTimeFormatter DATETIME_6 =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS").withZone(ZoneOffset.UTC);

    private final String database;
    private final String url;
    private final TestInfrastructure infra = TestInfrastructure.get();
    private final Deque<AutoCloseable> started = new ConcurrentLinkedDeque<>();
    private TestTopic topic;

    private OutboxFixture(String database) {
        this.database = database;
        this.url = infra.jdbcUrl(database) + "&connectionTimeZone=UTC&forceConnectionTimeZoneToSession=true";
    }

    /**
     * A relay test's database ({@code test_<name>_…}) and topic ({@code <name>-it-…}, {@code _} read as {@code -},
     * 3 partitions) on the test infrastructure's Kafka.
     */
    public static OutboxFixture forRelay(String name) {
        return forRelay(name, TestInfrastructure.get().kafkaBootstrapServers(), Map.of());
    }

    /** As {@link #forRelay(String)}, the topic on the given brokers with the given topic-level configs. */
    public static OutboxFixture forRelay(String name, String bootstrapServers, Map<String, String> topicConfigs) {
        OutboxFixture fixture = create(name);
        fixture.topic = TestTopic.create(bootstrapServers, name.replace('_', '-') + "-it", 3, topicConfigs);
        return fixture;
    }

    /** The topic of {@link #forRelay}. */
    public TestTopic topic() {
        return topic;
    }

    /** Starts a relay in this JVM on this database and topic; {@link #close} stops it. */
    public InProcessRelay startRelay(Map<String, String> settings, Class<?>... testConfigurations) {
        return stopsOnClose(InProcessRelay.start(this, topic, settings, testConfigurations));
    }

    /** Something started on this database and topic (a relay process), for {@link #close} to stop first. */
    public <T extends AutoCloseable> T stopsOnClose(T relay) {
        started.push(relay);
        return relay;
    }

    /** Stops what was started on it, latest first, then deletes the topic and drops the database. */
    @Override
    public void close() throws Exception {
        try {
            for (AutoCloseable relay = started.poll(); relay != null; relay = started.poll()) {
                relay.close();
            }
            if (topic != null) {
                topic.delete();
            }
        } finally {
            drop();
        }
    }

    /** A fresh database named {@code test_<prefix>_…} with the orders schema migrated. */
    public static OutboxFixture create(String prefix) {
        var fixture = new OutboxFixture(TestInfrastructure.get().createDatabase(prefix));
        Flyway.configure().dataSource(fixture.url, fixture.infra.dbUser(), fixture.infra.dbPassword())
                .locations("classpath:db/orders").load().migrate();
        return fixture;
    }

    public String database() {
        return database;
    }

    /** The JDBC url the relay under test should use. */
    public String jdbcUrl() {
        return infra.jdbcUrl(database);
    }

    /** {@code count} NEW StockDeducted rows over {@code keys} item codes {@code <keyPrefix>-<n>}, in id order. */
    public List<Row> insertNew(String keyPrefix, int keys, int count) {
        List<Row> rows = new ArrayList<>(count);
        Instant now = Instant.now();
        for (int i = 0; i < count; i++) {
            rows.add(Row.deduction(keyPrefix + "-" + (i % keys), OutboxStatus.NEW, now));
        }
        insert(rows);
        return rows;
    }

    public void insert(List<Row> rows) {
        try (Connection c = connect()) {
            for (int from = 0; from < rows.size(); from += ROWS_PER_INSERT) {
                List<Row> chunk = rows.subList(from, Math.min(rows.size(), from + ROWS_PER_INSERT));
                var sql = new StringBuilder("INSERT INTO outbox_event (event_id, aggregate_key, event_type, payload, "
                        + "status, attempts, available_at, created_at, sent_at) VALUES ");
                for (int i = 0; i < chunk.size(); i++) {
                    sql.append(i == 0 ? "" : ",").append("(?,?,?,?,?,0,?,?,?)");
                }
                try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                    int p = 1;
                    for (Row row : chunk) {
                        ps.setString(p++, row.eventId());
                        ps.setString(p++, row.key());
                        ps.setString(p++, row.eventType());
                        ps.setString(p++, row.payload());
                        ps.setString(p++, row.status().name());
                        ps.setString(p++, datetime(row.availableAt()));
                        ps.setString(p++, datetime(row.createdAt()));
                        ps.setString(p++, row.sentAt() == null ? null : datetime(row.sentAt()));
                    }
                    ps.executeUpdate();
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public long count(String where, Object... params) {
        return queryForLong("SELECT COUNT(*) FROM outbox_event WHERE " + where, params);
    }

    public long countByStatus(OutboxStatus status) {
        return count("status = ?", status.name());
    }

    /** The rows of the given event ids, by event id. */
    public Map<String, Stored> stored(String where, Object... params) {
        Map<String, Stored> rows = new HashMap<>();
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(
                "SELECT id, event_id, status, attempts, claimed_by, last_error FROM outbox_event WHERE " + where)) {
            bind(ps, params);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.put(rs.getString("event_id"), new Stored(rs.getLong("id"), rs.getString("event_id"),
                            OutboxStatus.valueOf(rs.getString("status")), rs.getInt("attempts"),
                            rs.getString("claimed_by"), rs.getString("last_error")));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return rows;
    }

    /** Drops the database; call after the relay using it has stopped. */
    public void drop() {
        try (Connection c = connect(); var s = c.createStatement()) {
            s.execute("DROP DATABASE " + database);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url, infra.dbUser(), infra.dbPassword());
    }

    private long queryForLong(String sql, Object... params) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, params);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void bind(PreparedStatement ps, Object... params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            ps.setObject(i + 1, params[i] instanceof Instant instant ? datetime(instant) : params[i]);
        }
    }

    /** A DATETIME(6) literal in UTC. */
    public static String datetime(Instant instant) {
        return DATETIME_6.format(instant);
    }

    /** An outbox row to insert. */
    public record Row(String eventId, String key, String eventType, String payload, OutboxStatus status,
                      Instant availableAt, Instant createdAt, Instant sentAt) {

        public static Row deduction(String key, OutboxStatus status, Instant createdAt) {
            String eventId = UUID.randomUUID().toString();
            String payload = """
                    {"type":"StockDeducted","eventId":"%s","orderCode":"%s","itemCode":"%s","userId":"u-1",\
                    "quantity":1,"generation":1,"occurredAt":"%s"}""".formatted(eventId, UUID.randomUUID(), key,
                    createdAt);
            return new Row(eventId, key, "StockDeducted", payload, status, createdAt, createdAt, null);
        }

        public Row withPayload(String newPayload) {
            return new Row(eventId, key, eventType, newPayload, status, availableAt, createdAt, sentAt);
        }

        public Row withSentAt(Instant sent) {
            return new Row(eventId, key, eventType, payload, status, availableAt, createdAt, sent);
        }
    }

    /** What the relay left in a row. */
    public record Stored(long id, String eventId, OutboxStatus status, int attempts, String claimedBy,
                         String lastError) {
    }
}
