package io.flashstock.perf.jpa;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.contract.StockEvent;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/** The same write with Spring Data JPA: one saveAll per repository in one @Transactional method, two mappings. */
final class JpaOrderWrites {

    private JpaOrderWrites() {
    }

    /** outbox_event with its IDENTITY key ({@link OutboxEvent}). */
    @Component
    static class IdentityOutbox implements OrderWrites {

        private final Repositories.PurchaseOrders orders;
        private final Repositories.OutboxEvents outbox;
        private final ObjectWriter eventWriter;

        IdentityOutbox(Repositories.PurchaseOrders orders, Repositories.OutboxEvents outbox, JsonMapper jsonMapper) {
            this.orders = orders;
            this.outbox = outbox;
            this.eventWriter = jsonMapper.writerFor(StockEvent.class);
        }

        @Override
        public String variant() {
            return "jpa-identity";
        }

        @Override
        @Transactional
        public void write(List<BenchOrder> batch) {
            List<OutboxEvent> events = new ArrayList<>(batch.size());
            for (BenchOrder order : batch) {
                StockEvent event = order.event();
                var at = column(order);
                events.add(new OutboxEvent(event.eventId().toString(), event.itemCode(), event.type(),
                        eventWriter.writeValueAsString(event), OutboxStatus.NEW.name(), at, at));
            }
            orders.saveAll(purchaseOrders(batch));
            outbox.saveAll(events);
        }
    }

    /** outbox_event keyed by its event_id ({@link OutboxEventByEventId}), so its inserts batch too. */
    @Component
    static class BatchedOutbox implements OrderWrites {

        private final Repositories.PurchaseOrders orders;
        private final Repositories.OutboxEventsByEventId outbox;
        private final ObjectWriter eventWriter;

        BatchedOutbox(Repositories.PurchaseOrders orders, Repositories.OutboxEventsByEventId outbox,
                      JsonMapper jsonMapper) {
            this.orders = orders;
            this.outbox = outbox;
            this.eventWriter = jsonMapper.writerFor(StockEvent.class);
        }

        @Override
        public String variant() {
            return "jpa-batched";
        }

        @Override
        @Transactional
        public void write(List<BenchOrder> batch) {
            List<OutboxEventByEventId> events = new ArrayList<>(batch.size());
            for (BenchOrder order : batch) {
                StockEvent event = order.event();
                var at = column(order);
                events.add(new OutboxEventByEventId(event.eventId().toString(), event.itemCode(), event.type(),
                        eventWriter.writeValueAsString(event), OutboxStatus.NEW.name(), at, at));
            }
            orders.saveAll(purchaseOrders(batch));
            outbox.saveAll(events);
        }
    }

    private static List<PurchaseOrder> purchaseOrders(List<BenchOrder> batch) {
        List<PurchaseOrder> rows = new ArrayList<>(batch.size());
        for (BenchOrder order : batch) {
            rows.add(new PurchaseOrder(order.orderCode(), order.eventId().toString(), order.itemCode(),
                    order.generation(), order.userId(), order.quantity(), order.remaining(), order.idempotencyKey(),
                    column(order)));
        }
        return rows;
    }

    /** The UTC wall-clock value the engine writes (its Utc.toColumn), as the entity's type. */
    private static LocalDateTime column(BenchOrder order) {
        return LocalDateTime.ofInstant(order.createdAt(), ZoneOffset.UTC);
    }
}
