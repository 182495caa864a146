package io.flashstock.stock.locking;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * The per-item lock around each batch.
 *
 * @param mode                       {@code redisson}: an RLock per item (key {@code stock-lock:{item}}) from before
 *                                   the transaction until after its commit; {@code none}: no lock, to measure its cost
 * @param waitTime                   how long a batch waits for one item's lock; when it runs out the batch fails and
 *                                   is retried with back-off (never dead-lettered)
 * @param leaseTime                  how long Redis keeps a lock if its holder dies; must stay well above the time a
 *                                   batch takes, or a slow batch loses its lock before it commits
 * @param connectionPoolSize         Redis connections of the Redisson client
 * @param connectionMinimumIdleSize  Redis connections the Redisson client keeps open when idle
 */
@ConfigurationProperties("flashstock.lock")
public record LockSettings(
        @DefaultValue("redisson") LockMode mode,
        @DefaultValue("5s") Duration waitTime,
        @DefaultValue("30s") Duration leaseTime,
        @DefaultValue("8") int connectionPoolSize,
        @DefaultValue("2") int connectionMinimumIdleSize) {
}
