package io.flashstock.perf.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.LocalDateTime;

/**
 * outbox_event as an entity mapped the usual way: its AUTO_INCREMENT key as an IDENTITY id, the only generator
 * that fits it on MySQL and MariaDB (no sequences on MySQL). Hibernate inserts such an entity when it is
 * persisted, to learn its id, so these inserts are never batched.
 */
@Entity
@Table(name = "outbox_event")
class OutboxEvent {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    private String eventId;
    private String aggregateKey;
    private String eventType;
    private String payload;
    private String status;
    private int attempts;
    private LocalDateTime availableAt;
    private LocalDateTime createdAt;

    protected OutboxEvent() {
    }

    OutboxEvent(String eventId, String aggregateKey, String eventType, String payload, String status,
                LocalDateTime availableAt, LocalDateTime createdAt) {
        this.eventId = eventId;
        this.aggregateKey = aggregateKey;
        this.eventType = eventType;
        this.payload = payload;
        this.status = status;
        this.availableAt = availableAt;
        this.createdAt = createdAt;
    }
}
