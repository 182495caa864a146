package io.flashstock.order.reconciliation;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.flashstock.order.reconciliation.ReconciliationReport.OrdersRead;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;

import java.time.Duration;

/**
 * Where the reconciliation report (and so the dashboard, which shows its latest) reads the orders database: the
 * replica, where one is set ({@link ReplicaReadSettings}) and has caught up, else the primary. Orders are never
 * placed through it: the order path reads and writes the primary only. On the primary it reads through a pool of its
 * own, copied from the orders pool but with a longer socket timeout: a full report under load outlasted the order
 * path's 2 s, and its reads must not hold that path's connections either.
 */
public final class OrdersReads implements DisposableBean {

    private final JdbcClient primary;
    private final HikariDataSource primaryPool;
    private final HikariDataSource replicaPool;
    private final JdbcClient replica;
    private final Duration catchUp;

    private OrdersReads(JdbcClient primary, HikariDataSource primaryPool, HikariDataSource replicaPool,
                        Duration catchUp) {
        this.primary = primary;
        this.primaryPool = primaryPool;
        this.replicaPool = replicaPool;
        this.catchUp = catchUp;
        this.replica = replicaPool == null ? null : JdbcClient.create(replicaPool);
    }

    /** Every read on the primary. */
    static OrdersReads primaryOnly(JdbcClient primary) {
        return new OrdersReads(primary, null, null, Duration.ZERO);
    }

    static OrdersReads of(HikariDataSource orders, ReplicaReadSettings settings, Duration readTimeout) {
        // not HikariConfig.copyStateTo: it shares the driver properties, and the longer socket timeout set here
        // would then reach every new connection of the order path
        var reports = new HikariConfig();
        reports.setJdbcUrl(orders.getJdbcUrl());
        reports.setUsername(orders.getUsername());
        reports.setPassword(orders.getPassword());
        orders.getDataSourceProperties().forEach((name, value) -> reports.addDataSourceProperty((String) name, value));
        reports.addDataSourceProperty("socketTimeout", readTimeout.toMillis());
        reports.setAutoCommit(orders.isAutoCommit());
        reports.setConnectionTimeout(orders.getConnectionTimeout());
        reports.setPoolName("orders-reports");
        reports.setMaximumPoolSize(2);
        reports.setMinimumIdle(0);
        // a database down at start-up must not stop order-api: the report says so when it is asked
        reports.setInitializationFailTimeout(-1);
        var primaryPool = new HikariDataSource(reports);
        var primary = JdbcClient.create(primaryPool);
        if (settings.url().isBlank()) {
            return new OrdersReads(primary, primaryPool, null, Duration.ZERO);
        }
        var config = new HikariConfig();
        config.setPoolName("orders-replica");
        config.setJdbcUrl(settings.url());
        config.setUsername(settings.username());
        config.setPassword(settings.password());
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(0);
        config.setReadOnly(true);
        config.setConnectionTimeout(1000);
        config.addDataSourceProperty("connectTimeout", 1000);
        config.addDataSourceProperty("socketTimeout", settings.catchUp().plusSeconds(10).toMillis());
        config.addDataSourceProperty("connectionTimeZone", "UTC");
        config.addDataSourceProperty("forceConnectionTimeZoneToSession", true);
        config.addDataSourceProperty("useSSL", false);
        config.addDataSourceProperty("allowPublicKeyRetrieval", true);
        // a replica down at start-up must not stop order-api: the report reads the primary meanwhile
        config.setInitializationFailTimeout(-1);
        return new OrdersReads(primary, primaryPool, new HikariDataSource(config), settings.catchUp());
    }

    /**
     * Where this report's reads go: the replica once it has applied all the primary had written to its binary log
     * when asked (MASTER_GTID_WAIT), so that it answers as the primary would have answered then or later, never
     * earlier: a lagging replica would count fewer orders than Redis took and show drift where there is none. Past
     * the wait, or without an answer, the primary.
     */
    Source begin() {
        if (replica == null) {
            return new Source(primary, new OrdersRead("primary", null, null));
        }
        try {
            String position = primary.sql("SELECT @@gtid_binlog_pos").query(String.class).single();
            if (position.isBlank()) {
                return onPrimary(null, "the primary writes no binary log: nothing to wait for");
            }
            // after a failover the replica's address may be the promoted primary, which replicates from nothing
            if (!replica.sql("SELECT @@read_only").query(Boolean.class).single()) {
                return onPrimary(position, "the replica's address is writable: a primary, since a failover?");
            }
            Integer reached = replica.sql("SELECT MASTER_GTID_WAIT(?, ?)").param(position)
                    .param(catchUp.toMillis() / 1000.0).query(Integer.class).single();
            if (reached == null || reached != 0) {
                return onPrimary(position, "the replica had not applied it within " + catchUp);
            }
            return new Source(replica, new OrdersRead("replica", position, null));
        } catch (DataAccessException e) {
            return onPrimary(null, "the replica did not answer: " + e.getMostSpecificCause().getMessage());
        }
    }

    private Source onPrimary(String position, String why) {
        return new Source(primary, new OrdersRead("primary", position, why));
    }

    @Override
    public void destroy() {
        if (replicaPool != null) {
            replicaPool.close();
        }
        if (primaryPool != null) {
            primaryPool.close();
        }
    }

    /** The client this report's reads use, and what the report says of them. */
    record Source(JdbcClient jdbc, OrdersRead read) {
    }
}
