package io.flashstock.stock.ledger;

import io.flashstock.contract.StockDeducted;
import io.flashstock.contract.StockEvent;
import io.flashstock.contract.StockReset;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Applies a batch of stock events to the stock database exactly once, in one transaction: new event ids go into
 * {@code processed_event}, already processed ones are skipped, and each item's new events are applied in their
 * offset order. Consecutive deductions of one generation become a single conditional update; when it changes no
 * row, the item's row is read under a lock to find out which events cannot be applied, and those are recorded as
 * anomalies instead. A deduction whose generation's reset has not arrived yet is held as an anomaly and applied
 * with that reset: an item's events may arrive out of order when more than one relay publishes them. An event whose
 * generation is further ahead of the stored one than order-api can be is refused ({@link RefusedEventException}).
 */
@Component
public class StockLedger {

    private final ProcessedEvents processedEvents;
    private final StockLevels levels;
    private final Anomalies anomalies;
    private final long maxGenerationStep;
    private final Clock clock;

    StockLedger(ProcessedEvents processedEvents, StockLevels levels, Anomalies anomalies, LedgerSettings properties,
                Clock clock) {
        this.processedEvents = processedEvents;
        this.levels = levels;
        this.anomalies = anomalies;
        this.maxGenerationStep = properties.maxGenerationStep();
        this.clock = clock;
    }

    /**
     * Read committed, because correctness rests on the conditional updates, the row locks and the primary keys,
     * not on repeatable reads; it also spares the gap locks that repeatable read takes when a statement finds no
     * row, which deadlocked consumers creating rows of new items side by side.
     *
     * @param events valid events in consumption order (per item, that is offset order)
     * @throws RefusedEventException if an event's generation is too far ahead; nothing of the batch is applied
     */
    @Transactional(isolation = Isolation.READ_COMMITTED)
    public LedgerOutcome apply(List<StockEvent> events) {
        Instant now = clock.instant();
        Map<UUID, StockEvent> unique = new LinkedHashMap<>();
        events.forEach(event -> unique.putIfAbsent(event.eventId(), event));
        Set<UUID> processed = processedEvents.alreadyProcessed(unique.keySet());
        List<StockEvent> fresh = unique.values().stream().filter(e -> !processed.contains(e.eventId())).toList();
        processedEvents.record(fresh, now);

        var outcome = new Outcome(now);
        // sorted, so that concurrent transactions lock stock_level rows in the same order
        Map<String, List<StockEvent>> byItem = fresh.stream()
                .collect(Collectors.groupingBy(StockEvent::itemCode, TreeMap::new, Collectors.toList()));
        byItem.values().forEach(itemEvents -> applyItem(itemEvents, outcome));
        outcome.recordAnomalies();
        return new LedgerOutcome(outcome.applied, events.size() - fresh.size(), outcome.anomalies, outcome.released);
    }

    private void applyItem(List<StockEvent> events, Outcome outcome) {
        List<StockDeducted> run = new ArrayList<>();
        for (StockEvent event : events) {
            if (event instanceof StockReset reset) {
                applyDeductions(run, outcome);
                run = new ArrayList<>();
                applyReset(reset, outcome);
            } else {
                StockDeducted deducted = (StockDeducted) event;
                if (!run.isEmpty() && run.get(0).generation() != deducted.generation()) {
                    applyDeductions(run, outcome);
                    run = new ArrayList<>();
                }
                run.add(deducted);
            }
        }
        applyDeductions(run, outcome);
    }

    /** A run of one item's consecutive deductions of one generation. */
    private void applyDeductions(List<StockDeducted> run, Outcome outcome) {
        if (run.isEmpty()) {
            return;
        }
        String itemCode = run.get(0).itemCode();
        long generation = run.get(0).generation();
        if (levels.deduct(itemCode, generation, total(run), run.size(), outcome.now)) {
            outcome.applied.addAll(run);
            return;
        }
        Optional<StockLevels.Level> level = levels.lock(itemCode);
        refuseIfTooFarAhead(run.get(0), level);
        if (level.isEmpty()) {
            run.forEach(d -> outcome.anomaly(d, AnomalyKind.UNKNOWN_GENERATION, "no stock reset seen for the item"));
        } else if (generation < level.get().generation()) {
            run.forEach(d -> outcome.anomaly(d, AnomalyKind.STALE,
                    "generation " + generation + " is older than the stored generation " + level.get().generation()));
        } else if (generation > level.get().generation()) {
            run.forEach(d -> outcome.anomaly(d, AnomalyKind.UNKNOWN_GENERATION, "generation " + generation
                    + " is newer than the stored generation " + level.get().generation() + ": its reset was not seen"));
        } else {
            applyWhatFits(run, level.get().quantity(), outcome);
        }
    }

    /** The run as a whole did not fit: apply its deductions in order while they fit, the others are anomalies. */
    private void applyWhatFits(List<StockDeducted> run, long available, Outcome outcome) {
        long left = available;
        List<StockDeducted> fitting = new ArrayList<>();
        for (StockDeducted deducted : run) {
            if (deducted.quantity() <= left) {
                fitting.add(deducted);
                left -= deducted.quantity();
            } else {
                outcome.anomaly(deducted, AnomalyKind.INSUFFICIENT_STOCK,
                        deducted.quantity() + " units deducted but only " + left + " left");
            }
        }
        if (fitting.isEmpty()) {
            return;
        }
        StockDeducted first = fitting.get(0);
        if (!levels.deduct(first.itemCode(), first.generation(), total(fitting), fitting.size(), outcome.now)) {
            // the row is locked by this transaction since it was read, so this would be a bug, not a race
            throw new IllegalStateException("stock_level row of " + first.itemCode() + " changed under its row lock");
        }
        outcome.applied.addAll(fitting);
    }

    private void applyReset(StockReset reset, Outcome outcome) {
        if (levels.resetIfNewer(reset, maxGenerationStep, outcome.now)) {
            outcome.applied.add(reset);
            releaseHeld(reset, outcome);
            return;
        }
        Optional<StockLevels.Level> level = levels.lock(reset.itemCode());
        refuseIfTooFarAhead(reset, level);
        if (level.isEmpty()) {
            levels.insert(reset, outcome.now);
            outcome.applied.add(reset);
            releaseHeld(reset, outcome);
        } else {
            outcome.anomaly(reset, AnomalyKind.STALE, "reset to generation " + reset.generation()
                    + " is not newer than the stored generation " + level.get().generation());
        }
    }

    /**
     * Applies the deductions of the reset's generation that arrived before it, in the order they were recorded,
     * while they fit; and marks those held for older generations stale, since their baseline is gone.
     */
    private void releaseHeld(StockReset reset, Outcome outcome) {
        // deductions held earlier in this batch must be in the table to be found
        outcome.recordAnomalies();
        anomalies.staleBefore(reset.itemCode(), reset.generation());
        List<Anomalies.Held> held = anomalies.heldFor(reset.itemCode(), reset.generation());
        if (held.isEmpty()) {
            return;
        }
        long left = reset.quantity();
        List<Anomalies.Held> fitting = new ArrayList<>();
        List<Anomalies.Held> tooLarge = new ArrayList<>();
        for (Anomalies.Held deduction : held) {
            if (deduction.quantity() <= left) {
                fitting.add(deduction);
                left -= deduction.quantity();
            } else {
                tooLarge.add(deduction);
            }
        }
        if (!fitting.isEmpty()) {
            long units = reset.quantity() - left;
            if (!levels.deduct(reset.itemCode(), reset.generation(), units, fitting.size(), outcome.now)) {
                // the row was written by this transaction a moment ago, so this would be a bug, not a race
                throw new IllegalStateException("stock_level row of " + reset.itemCode() + " changed under its row lock");
            }
            anomalies.release(fitting);
            outcome.released += fitting.size();
        }
        anomalies.reclassify(tooLarge, AnomalyKind.INSUFFICIENT_STOCK,
                "held for its reset, which left too few units for it");
    }

    /**
     * order-api raises an item's generation by one per reset, and every reset reaches this ledger; an event far
     * beyond the stored generation is not order-api's, and a reset that far ahead would leave every later real
     * reset stale.
     */
    private void refuseIfTooFarAhead(StockEvent event, Optional<StockLevels.Level> level) {
        long stored = level.map(StockLevels.Level::generation).orElse(0L);
        if (event.generation() > stored && event.generation() - stored > maxGenerationStep) {
            throw new RefusedEventException(event.type() + " " + event.eventId() + " of item " + event.itemCode()
                    + " has generation " + event.generation() + ", more than " + maxGenerationStep
                    + " (flashstock.ledger.max-generation-step) ahead of the stored generation " + stored);
        }
    }

    private static long total(List<StockDeducted> run) {
        return run.stream().mapToLong(StockDeducted::quantity).sum();
    }

    private final class Outcome {
        private final Instant now;
        private final List<StockEvent> applied = new ArrayList<>();
        private final List<Anomaly> anomalies = new ArrayList<>();
        private int recorded;
        private int released;

        private Outcome(Instant now) {
            this.now = now;
        }

        private void anomaly(StockEvent event, AnomalyKind kind, String detail) {
            anomalies.add(new Anomaly(event, kind, detail));
        }

        /** Writes the anomalies found since the last call. */
        private void recordAnomalies() {
            StockLedger.this.anomalies.record(anomalies.subList(recorded, anomalies.size()), now);
            recorded = anomalies.size();
        }
    }
}
