package io.flashstock.perf.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.PostLoad;
import jakarta.persistence.PostPersist;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;
import org.springframework.data.domain.Persistable;

import java.time.LocalDateTime;

/**
 * outbox_event mapped for batching, the tuning a team reaches for once IDENTITY shows up: keyed by its unique
 * event_id (assigned by the application), the AUTO_INCREMENT id left unmapped for the database to fill.
 */
@Entity
@Table(name = "outbox_event")
class OutboxEventByEventId implements Persistable<String> {

    @Id
    private String eventId;
    private String aggregateKey;
    private String eventType;
    private String payload;
    private String status;
    private int attempts;
    private LocalDateTime availableAt;
    private LocalDateTime createdAt;
    @Transient
    private boolean isNew = true;

    protected OutboxEventByEventId() {
    }

    OutboxEventByEventId(String eventId, String aggregateKey, String eventType, String payload, String status,
                         LocalDateTime availableAt, LocalDateTime createdAt) {
        this.eventId = eventId;
        this.aggregateKey = aggregateKey;
        this.eventType = eventType;
        this.payload = payload;
        this.status = status;
        this.availableAt = availableAt;
        this.createdAt = createdAt;
    }

    @Override
    public String getId() {
        return eventId;
    }

    @Override
    public boolean isNew() {
        return isNew;
    }

    @PostPersist
    @PostLoad
    void persisted() {
        isNew = false;
    }
}
