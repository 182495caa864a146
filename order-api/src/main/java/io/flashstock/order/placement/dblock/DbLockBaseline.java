package io.flashstock.order.placement.dblock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.flashstock.order.outbox.Outbox;
import io.flashstock.order.placement.commit.CheckedCommit;
import io.flashstock.order.placement.commit.OrderRows;
import io.flashstock.order.placement.core.OrderMetrics;
import io.flashstock.order.placement.core.PlacementSettings;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.JdbcTransactionManager;
import tools.jackson.databind.json.JsonMapper;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Clock;

/**
 * The DB-lock baseline on a connection pool of its own ({@code orders-db-lock}, {@link PlacementSettings.DbLock}):
 * its orders queue on the item's row lock while holding a connection, so on the shared pool a flood of them took
 * every connection, the Redis gate's writes timed out waiting for one, and the {@code DatabaseBreaker} took that
 * for an unreachable database and refused every order of the engine. The pool copies the orders pool's settings
 * (URL, credentials, driver properties) and sets its own size and connection timeout.
 */
@Configuration(proxyBeanMethods = false)
class DbLockBaseline {

    /** Holds the pool; not a {@link DataSource} bean, which would displace the application's own. */
    static final class Pool implements AutoCloseable {
        private final HikariDataSource dataSource;

        Pool(HikariDataSource dataSource) {
            this.dataSource = dataSource;
        }

        @Override
        public void close() {
            dataSource.close();
        }
    }

    @Bean
    Pool dbLockPool(DataSource orders, PlacementSettings settings, MeterRegistry meters) throws SQLException {
        var config = new HikariConfig();
        orders.unwrap(HikariDataSource.class).copyStateTo(config);
        config.setPoolName("orders-db-lock");
        config.setMaximumPoolSize(settings.dbLock().poolSize());
        config.setMinimumIdle(Math.min(2, settings.dbLock().poolSize()));
        config.setConnectionTimeout(settings.dbLock().connectionTimeout().toMillis());
        config.setMetricRegistry(null);
        config.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(meters));
        return new Pool(new HikariDataSource(config));
    }

    @Bean
    PlaceOrderWithDbLock placeOrderWithDbLock(Pool pool, ObjectProvider<DbLockTransactions> transactions,
                                              JsonMapper json, OrderMetrics metrics, Clock clock) {
        var template = new JdbcTemplate(pool.dataSource);
        var jdbc = JdbcClient.create(template);
        var rows = new OrderRows(jdbc, template, new Outbox(template, json));
        DbLockTransactions manager = transactions.getIfAvailable(() -> JdbcTransactionManager::new);
        var commits = new CheckedCommit(manager.over(pool.dataSource), rows);
        return new PlaceOrderWithDbLock(new DbLockGate(jdbc, rows), commits, rows, metrics, clock);
    }
}
