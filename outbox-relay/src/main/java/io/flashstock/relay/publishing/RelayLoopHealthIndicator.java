package io.flashstock.relay.publishing;

import io.flashstock.relay.RelaySettings;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

import java.time.Duration;

/**
 * Liveness of the relay loop (health component {@code relayLoop}, in the liveness group), so that the process
 * gets restarted when the loop can no longer move: DOWN when its thread has died (only an {@link Error} can
 * cause that), or when it has been in one cycle longer than {@link RelaySettings#stallTimeout()} (stuck in a
 * call that does not return).
 */
@Component
public class RelayLoopHealthIndicator implements HealthIndicator {

    private final OutboxRelay relay;
    private final LoopHeartbeat heartbeat;
    private final Duration stallTimeout;

    public RelayLoopHealthIndicator(OutboxRelay relay, LoopHeartbeat heartbeat, RelaySettings settings) {
        this.relay = relay;
        this.heartbeat = heartbeat;
        this.stallTimeout = settings.stallTimeout();
    }

    @Override
    public Health health() {
        if (!relay.loopAlive()) {
            return Health.down().withDetail("reason", "the relay loop thread has ended").build();
        }
        Duration inCycle = heartbeat.inCycleFor();
        if (relay.isRunning() && inCycle.compareTo(stallTimeout) > 0) {
            return Health.down().withDetail("reason", "the relay loop has been in one cycle for " + inCycle
                    + ", longer than flashstock.relay.stall-timeout (" + stallTimeout + ")").build();
        }
        return Health.up().withDetail("inCycleFor", inCycle.toString()).build();
    }
}
