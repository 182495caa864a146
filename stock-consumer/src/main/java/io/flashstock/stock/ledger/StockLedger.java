package io.flashstock.stock.ledger;

import io.flashstock.contract.StockDeducted;
import io.flashstock.contract.StockEvent;
import io.flashstock.contract.StockReset;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * The steps are {@link DeductionRuns}, {@link Resets} with {@link HeldDeductions}, and {@link GenerationStep}.
 */
@Component
public class StockLedger {

    private final ProcessedEvents processedEvents;
    private final Anomalies anomalies;
    private final DeductionRuns deductions;
    private final Resets resets;
    private final Clock clock;

    StockLedger(ProcessedEvents processedEvents, StockLevels levels, Anomalies anomalies, LedgerSettings properties,
                Clock clock) {
        this.processedEvents = processedEvents;
        this.anomalies = anomalies;
        var step = new GenerationStep(properties.maxGenerationStep());
        this.deductions = new DeductionRuns(levels, step);
        this.resets = new Resets(levels, new HeldDeductions(levels, anomalies), step);
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
        var batch = new LedgerBatch(anomalies, clock.instant());
        Map<UUID, StockEvent> unique = new LinkedHashMap<>();
        events.forEach(event -> unique.putIfAbsent(event.eventId(), event));
        Set<UUID> processed = processedEvents.alreadyProcessed(unique.keySet());
        List<StockEvent> fresh = unique.values().stream().filter(e -> !processed.contains(e.eventId())).toList();
        processedEvents.record(fresh, batch.now());

        // sorted, so that concurrent transactions lock stock_level rows in the same order
        Map<String, List<StockEvent>> byItem = fresh.stream()
                .collect(Collectors.groupingBy(StockEvent::itemCode, TreeMap::new, Collectors.toList()));
        byItem.values().forEach(itemEvents -> applyItem(itemEvents, batch));
        batch.recordAnomalies();
        return batch.outcome(events.size() - fresh.size());
    }

    /** The item's events in their order: its deductions in runs of one generation, each reset between them. */
    private void applyItem(List<StockEvent> events, LedgerBatch batch) {
        List<StockDeducted> run = new ArrayList<>();
        for (StockEvent event : events) {
            if (event instanceof StockReset reset) {
                deductions.apply(run, batch);
                run = new ArrayList<>();
                resets.apply(reset, batch);
            } else {
                StockDeducted deducted = (StockDeducted) event;
                if (!run.isEmpty() && run.get(0).generation() != deducted.generation()) {
                    deductions.apply(run, batch);
                    run = new ArrayList<>();
                }
                run.add(deducted);
            }
        }
        deductions.apply(run, batch);
    }
}
