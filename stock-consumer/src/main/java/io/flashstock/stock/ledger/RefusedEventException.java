package io.flashstock.stock.ledger;

/**
 * An event the ledger will not apply because order-api cannot have written it: applying it would corrupt the item's
 * row for good. Its batch fails, and the listener dead-letters the event after a bounded number of attempts.
 */
public class RefusedEventException extends RuntimeException {

    public RefusedEventException(String message) {
        super(message);
    }
}
