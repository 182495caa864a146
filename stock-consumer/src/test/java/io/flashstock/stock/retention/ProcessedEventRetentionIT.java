package io.flashstock.stock.retention;

import io.flashstock.testsupport.TestInfrastructure;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The clean-up against the real schema, on a database of its own; no Spring context needed. */
class ProcessedEventRetentionIT {

    @Test
    void deletesOnlyRowsOlderThanTheRetentionInBoundedBatches() {
        var infra = TestInfrastructure.get();
        var dataSource = new DriverManagerDataSource(infra.jdbcUrl(infra.createDatabase("retention")),
                infra.dbUser(), infra.dbPassword());
        Flyway.configure().dataSource(dataSource).locations("classpath:db/stock").load().migrate();
        var jdbc = new JdbcTemplate(dataSource);
        LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
        for (int i = 0; i < 7; i++) {
            insert(jdbc, now.minusDays(8).plusMinutes(i));
        }
        insert(jdbc, now.minusDays(6));
        insert(jdbc, now);

        var retention = new ProcessedEventRetention(jdbc,
                new RetentionSettings(Duration.ofDays(7), 3, Duration.ofHours(1)),
                Clock.fixed(now.toInstant(ZoneOffset.UTC), ZoneOffset.UTC));

        assertThat(retention.prune()).isEqualTo(7);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM processed_event", Long.class)).isEqualTo(2);
        assertThat(retention.prune()).isZero();
    }

    private static void insert(JdbcTemplate jdbc, LocalDateTime processedAt) {
        jdbc.update("INSERT INTO processed_event (event_id, item_code, processed_at) VALUES (?, ?, ?)",
                UUID.randomUUID().toString(), "retention-item", processedAt);
    }
}
