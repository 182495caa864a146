package io.flashstock.relay.monitoring;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.relay.RelaySettings;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Gauges of the whole outbox table (all relays together): unsent rows, the age of the oldest unsent row
 * and DEAD rows. A background task queries them every {@link RelaySettings#backlogSampleInterval()}, so a
 * scrape never runs a query; NaN means not sampled yet or the last sample failed.
 */
@Component
public class OutboxBacklog implements SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(OutboxBacklog.class);

    private static final String COUNT_BY_STATUS = "SELECT COUNT(*) FROM outbox_event WHERE status = :status";
    /**
     * The lowest NEW id is the oldest unsent row, and ix_outbox_claim finds it without a scan; its age is
     * taken on the database's clock, like every time the relay writes.
     */
    private static final String OLDEST_UNSENT_AGE = """
            SELECT TIMESTAMPDIFF(MICROSECOND, created_at, UTC_TIMESTAMP(6))
            FROM outbox_event WHERE status = :status ORDER BY id LIMIT 1""";
    private static final double MICROS_PER_SECOND = 1e6;

    private final JdbcClient jdbc;
    private final Duration interval;

    private volatile double unsentRows = Double.NaN;
    private volatile double oldestUnsentSeconds = Double.NaN;
    private volatile double deadRows = Double.NaN;

    public OutboxBacklog(JdbcClient jdbc, RelaySettings settings, MeterRegistry registry) {
        this.jdbc = jdbc;
        this.interval = settings.backlogSampleInterval();
        Gauge.builder("flashstock.relay.backlog", this, backlog -> backlog.unsentRows)
                .description("Rows with status NEW (waiting, in flight or waiting for a retry)")
                .baseUnit("rows")
                .register(registry);
        TimeGauge.builder("flashstock.relay.oldest.unsent.age", this, TimeUnit.SECONDS,
                        backlog -> backlog.oldestUnsentSeconds)
                .description("Age of the oldest NEW row; 0 when there is none")
                .register(registry);
        Gauge.builder("flashstock.relay.dead.rows", this, backlog -> backlog.deadRows)
                .description("Rows with status DEAD, waiting for an operator")
                .baseUnit("rows")
                .register(registry);
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar registrar) {
        registrar.addFixedDelayTask(this::sample, interval);
    }

    void sample() {
        try {
            long unsent = count(OutboxStatus.NEW);
            Optional<Long> oldestMicros = jdbc.sql(OLDEST_UNSENT_AGE).param("status", OutboxStatus.NEW.name())
                    .query(Long.class).optional();
            long dead = count(OutboxStatus.DEAD);
            unsentRows = unsent;
            oldestUnsentSeconds = oldestMicros.map(micros -> micros / MICROS_PER_SECOND).orElse(0.0);
            deadRows = dead;
        } catch (DataAccessException e) {
            unsentRows = Double.NaN;
            oldestUnsentSeconds = Double.NaN;
            deadRows = Double.NaN;
            log.warn("could not sample the outbox backlog: {}", e.getMostSpecificCause().toString());
        }
    }

    private long count(OutboxStatus status) {
        return jdbc.sql(COUNT_BY_STATUS).param("status", status.name()).query(Long.class).single();
    }
}
