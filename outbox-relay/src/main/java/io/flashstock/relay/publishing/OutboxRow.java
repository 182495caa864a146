package io.flashstock.relay.publishing;

import java.time.Instant;

/**
 * One claimed {@code outbox_event} row.
 *
 * @param attempts how many times the row has been claimed, this claim included
 * @param failures how many sends of the row failed on the record itself before this claim (the broker or the
 *                 producer refused it); outages and leases that ran out do not count
 */
public record OutboxRow(long id, String eventId, String key, String eventType, String payload, Instant createdAt,
                        int attempts, int failures) {
}
