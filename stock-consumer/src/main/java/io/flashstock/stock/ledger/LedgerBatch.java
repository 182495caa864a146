package io.flashstock.stock.ledger;

import io.flashstock.contract.StockEvent;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** What one {@link StockLedger#apply} did so far: the events applied, the anomalies found, the held ones released. */
final class LedgerBatch {

    private final Anomalies table;
    private final Instant now;
    private final List<StockEvent> applied = new ArrayList<>();
    private final List<Anomaly> anomalies = new ArrayList<>();
    private int recorded;
    private int released;

    LedgerBatch(Anomalies table, Instant now) {
        this.table = table;
        this.now = now;
    }

    Instant now() {
        return now;
    }

    void applied(StockEvent event) {
        applied.add(event);
    }

    void applied(List<? extends StockEvent> events) {
        applied.addAll(events);
    }

    void anomaly(StockEvent event, AnomalyKind kind, String detail) {
        anomalies.add(new Anomaly(event, kind, detail));
    }

    void released(int count) {
        released += count;
    }

    /** Writes the anomalies found since the last call. */
    void recordAnomalies() {
        table.record(anomalies.subList(recorded, anomalies.size()), now);
        recorded = anomalies.size();
    }

    LedgerOutcome outcome(int duplicates) {
        return new LedgerOutcome(applied, duplicates, anomalies, released);
    }
}
