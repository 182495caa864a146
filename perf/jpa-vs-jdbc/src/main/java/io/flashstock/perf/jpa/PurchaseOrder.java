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
 * purchase_order as an entity, its columns as the engine writes them. The id is the order code the application
 * assigns, so Persistable says the entity is new: otherwise saveAll would merge, reading each row before inserting it.
 */
@Entity
@Table(name = "purchase_order")
class PurchaseOrder implements Persistable<String> {

    @Id
    private String orderCode;
    private String eventId;
    private String itemCode;
    private long generation;
    private String userId;
    private int quantity;
    private long remaining;
    private String idempotencyKey;
    private LocalDateTime createdAt;
    @Transient
    private boolean isNew = true;

    protected PurchaseOrder() {
    }

    PurchaseOrder(String orderCode, String eventId, String itemCode, long generation, String userId, int quantity,
                  long remaining, String idempotencyKey, LocalDateTime createdAt) {
        this.orderCode = orderCode;
        this.eventId = eventId;
        this.itemCode = itemCode;
        this.generation = generation;
        this.userId = userId;
        this.quantity = quantity;
        this.remaining = remaining;
        this.idempotencyKey = idempotencyKey;
        this.createdAt = createdAt;
    }

    @Override
    public String getId() {
        return orderCode;
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
