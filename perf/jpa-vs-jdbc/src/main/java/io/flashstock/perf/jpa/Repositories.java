package io.flashstock.perf.jpa;

import org.springframework.data.jpa.repository.JpaRepository;

/** The Spring Data repositories of the JPA write paths. */
final class Repositories {

    private Repositories() {
    }

    interface PurchaseOrders extends JpaRepository<PurchaseOrder, String> {
    }

    interface OutboxEvents extends JpaRepository<OutboxEvent, Long> {
    }

    interface OutboxEventsByEventId extends JpaRepository<OutboxEventByEventId, String> {
    }
}
