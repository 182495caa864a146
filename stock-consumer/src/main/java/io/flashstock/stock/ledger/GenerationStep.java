package io.flashstock.stock.ledger;

import io.flashstock.contract.StockEvent;

import java.util.Optional;

/**
 * How far ahead of the stored generation an event may be. order-api raises an item's generation by one per reset,
 * and every reset reaches this ledger; an event far beyond the stored generation is not order-api's, and a reset that
 * far ahead would leave every later real reset stale.
 */
final class GenerationStep {

    private final long max;

    GenerationStep(long max) {
        this.max = max;
    }

    long max() {
        return max;
    }

    /** @throws RefusedEventException if the event's generation is more than the step ahead of the stored one */
    void refuseIfTooFarAhead(StockEvent event, Optional<StockLevels.Level> level) {
        long stored = level.map(StockLevels.Level::generation).orElse(0L);
        if (event.generation() > stored && event.generation() - stored > max) {
            throw new RefusedEventException(event.type() + " " + event.eventId() + " of item " + event.itemCode()
                    + " has generation " + event.generation() + ", more than " + max
                    + " (flashstock.ledger.max-generation-step) ahead of the stored generation " + stored);
        }
    }
}
