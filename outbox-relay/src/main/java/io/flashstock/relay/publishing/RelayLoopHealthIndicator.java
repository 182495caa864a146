package io.flashstock.relay.publishing;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * Liveness of the relay loop (health component {@code relayLoop}, in the liveness group): DOWN when its
 * thread has died, which only an {@link Error} can cause, so that the process gets restarted.
 */
@Component
public class RelayLoopHealthIndicator implements HealthIndicator {

    private final OutboxRelay relay;

    public RelayLoopHealthIndicator(OutboxRelay relay) {
        this.relay = relay;
    }

    @Override
    public Health health() {
        return relay.loopAlive() ? Health.up().build()
                : Health.down().withDetail("reason", "the relay loop thread has ended").build();
    }
}
