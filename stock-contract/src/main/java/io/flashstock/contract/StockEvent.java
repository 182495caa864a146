package io.flashstock.contract;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

import java.time.Instant;
import java.util.UUID;

/**
 * An event about one item's stock, published on {@link StockTopics#EVENTS} with the item code as key.
 * {@code generation} names the stock reset the event belongs to, so a consumer can tell a deduction
 * taken against an older baseline from a current one.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = StockDeducted.class, name = StockDeducted.TYPE),
        @JsonSubTypes.Type(value = StockReset.class, name = StockReset.TYPE)
})
public sealed interface StockEvent permits StockDeducted, StockReset {

    UUID eventId();

    String itemCode();

    long generation();

    Instant occurredAt();

    /** The name written in the outbox row's {@code event_type} column and in the {@code type} field. */
    String type();
}
