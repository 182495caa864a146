package io.flashstock.stock.levels;

import java.time.Instant;
import java.util.UUID;

/** A consumed event that was not applied, and why. */
public record AnomalyView(UUID eventId, String itemCode, String kind, String eventType, long generation,
                          long quantity, String detail, Instant occurredAt, Instant recordedAt) {
}
