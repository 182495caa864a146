package io.flashstock.order.reconciliation;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * The database replica the reconciliation report may read the orders from ({@code scripts/stack up --db-replica}
 * sets it), instead of the primary that takes the orders.
 *
 * @param url JDBC URL of the replica's {@code orders} database; empty: every read on the primary
 * @param username a read-only account of the replica (the application's own is locked on a replica)
 * @param password its password
 * @param catchUp how long a report waits for the replica to apply what the primary had when the report began; past it
 *             the report reads the primary
 */
@ConfigurationProperties("flashstock.reconciliation.replica")
public record ReplicaReadSettings(
        @DefaultValue("") String url,
        @DefaultValue("flashstock_reader") String username,
        @DefaultValue("flashstock_reader") String password,
        @DefaultValue("2s") Duration catchUp) {
}
