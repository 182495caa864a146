package io.flashstock.relay.publishing;

import java.time.Instant;

/**
 * One claimed {@code outbox_event} row.
 *
 * @param attempts how many times the row has been claimed, this claim included
 */
public record OutboxRow(long id, String eventId, String key, String eventType, String payload, Instant createdAt,
                        int attempts) {
}
