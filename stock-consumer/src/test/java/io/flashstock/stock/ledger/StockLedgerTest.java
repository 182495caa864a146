package io.flashstock.stock.ledger;

import io.flashstock.contract.StockDeducted;
import io.flashstock.contract.StockEvent;
import io.flashstock.contract.StockReset;
import io.flashstock.stock.support.Events;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The ledger's rules over an in-memory stock database: hand-written fakes of its three tables that do what their
 * conditional statements do; StockConsumerIT runs the real ones over MariaDB.
 */
class StockLedgerTest {

    private static final Instant NOW = Instant.parse("2026-11-26T16:00:00Z");
    private static final String ITEM = "sneaker";
    private static final long MAX_STEP = 10;

    private final InMemoryProcessedEvents processed = new InMemoryProcessedEvents();
    private final InMemoryStockLevels levels = new InMemoryStockLevels();
    private final InMemoryAnomalies anomalies = new InMemoryAnomalies();
    private final StockLedger ledger = new StockLedger(processed, levels, anomalies, new LedgerSettings(MAX_STEP),
            Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    void aFirstResetCreatesTheRowAndDeductionsTakeFromIt() {
        StockReset reset = Events.reset(ITEM, 10, 1);
        StockDeducted first = Events.deducted(ITEM, 2, 1);
        StockDeducted second = Events.deducted(ITEM, 3, 1);

        LedgerOutcome outcome = ledger.apply(List.of(reset, first, second));

        assertThat(outcome.applied()).containsExactly(reset, first, second);
        assertThat(outcome.duplicates()).isZero();
        assertThat(outcome.anomalies()).isEmpty();
        assertThat(levels.row(ITEM)).isEqualTo(new Row(1, 10, 5, 2));
        assertThat(levels.deductions).as("one run of deductions, one conditional update").isEqualTo(1);
        assertThat(processed.ids).containsExactlyInAnyOrder(reset.eventId(), first.eventId(), second.eventId());
    }

    @Test
    void anEventAlreadyProcessedOrRepeatedInTheBatchIsSkipped() {
        StockReset reset = Events.reset(ITEM, 10, 1);
        StockDeducted deducted = Events.deducted(ITEM, 2, 1);
        ledger.apply(List.of(reset, deducted));

        StockDeducted next = Events.deducted(ITEM, 1, 1);
        LedgerOutcome outcome = ledger.apply(List.of(deducted, next, next));

        assertThat(outcome.applied()).containsExactly(next);
        assertThat(outcome.duplicates()).isEqualTo(2);
        assertThat(levels.row(ITEM)).isEqualTo(new Row(1, 10, 7, 2));
    }

    @Test
    void aRunThatDoesNotFitAppliesWhatFitsInOrderAndRecordsTheRest() {
        ledger.apply(List.of(Events.reset(ITEM, 5, 1)));
        StockDeducted three = Events.deducted(ITEM, 3, 1);
        StockDeducted four = Events.deducted(ITEM, 4, 1);
        StockDeducted two = Events.deducted(ITEM, 2, 1);

        LedgerOutcome outcome = ledger.apply(List.of(three, four, two));

        assertThat(outcome.applied()).containsExactly(three, two);
        assertThat(outcome.anomalies()).singleElement().satisfies(a -> {
            assertThat(a.event()).isEqualTo(four);
            assertThat(a.kind()).isEqualTo(AnomalyKind.INSUFFICIENT_STOCK);
            assertThat(a.detail()).isEqualTo("4 units deducted but only 2 left");
        });
        assertThat(levels.row(ITEM)).isEqualTo(new Row(1, 5, 0, 2));
        assertThat(anomalies.kinds()).containsExactly(AnomalyKind.INSUFFICIENT_STOCK);
    }

    @Test
    void aDeductionThatTakesTheLastUnitExactlyIsApplied() {
        ledger.apply(List.of(Events.reset(ITEM, 5, 1)));
        StockDeducted three = Events.deducted(ITEM, 3, 1);
        StockDeducted four = Events.deducted(ITEM, 4, 1);
        StockDeducted two = Events.deducted(ITEM, 2, 1);

        LedgerOutcome outcome = ledger.apply(List.of(four, three, two));

        assertThat(outcome.applied()).as("4 then 1 left: 3 does not fit, 2 does not either")
                .containsExactly(four);
        ledger.apply(List.of(Events.deducted(ITEM, 1, 1)));
        assertThat(levels.row(ITEM).quantity()).isZero();
    }

    @Test
    void aDeductionOfAnOlderGenerationIsStale() {
        ledger.apply(List.of(Events.reset(ITEM, 5, 1), Events.reset(ITEM, 8, 2)));
        StockDeducted old = Events.deducted(ITEM, 1, 1);

        LedgerOutcome outcome = ledger.apply(List.of(old));

        assertThat(outcome.applied()).isEmpty();
        assertThat(outcome.anomalies()).singleElement().satisfies(a -> {
            assertThat(a.kind()).isEqualTo(AnomalyKind.STALE);
            assertThat(a.detail()).isEqualTo("generation 1 is older than the stored generation 2");
        });
        assertThat(levels.row(ITEM)).isEqualTo(new Row(2, 8, 8, 0));
    }

    @Test
    void aDeductionBeforeAnyResetIsHeldAndAppliedWithItsReset() {
        StockDeducted early = Events.deducted(ITEM, 2, 1);

        LedgerOutcome held = ledger.apply(List.of(early));

        assertThat(held.anomalies()).singleElement().satisfies(a -> {
            assertThat(a.kind()).isEqualTo(AnomalyKind.UNKNOWN_GENERATION);
            assertThat(a.detail()).isEqualTo("no stock reset seen for the item");
        });
        assertThat(levels.row(ITEM)).isNull();

        LedgerOutcome withReset = ledger.apply(List.of(Events.reset(ITEM, 10, 1)));

        assertThat(withReset.released()).isEqualTo(1);
        assertThat(levels.row(ITEM)).isEqualTo(new Row(1, 10, 8, 1));
        assertThat(anomalies.rows).isEmpty();
    }

    @Test
    void aDeductionOfANewerGenerationWaitsForItsResetEvenInTheSameBatch() {
        ledger.apply(List.of(Events.reset(ITEM, 5, 1)));
        StockDeducted early = Events.deducted(ITEM, 3, 2);
        StockReset reset = Events.reset(ITEM, 10, 2);

        LedgerOutcome outcome = ledger.apply(List.of(early, reset));

        assertThat(outcome.anomalies()).singleElement().satisfies(a -> {
            assertThat(a.kind()).isEqualTo(AnomalyKind.UNKNOWN_GENERATION);
            assertThat(a.detail()).isEqualTo("generation 2 is newer than the stored generation 1: its reset was not seen");
        });
        assertThat(outcome.applied()).containsExactly(reset);
        assertThat(outcome.released()).isEqualTo(1);
        assertThat(levels.row(ITEM)).isEqualTo(new Row(2, 10, 7, 1));
        assertThat(anomalies.rows).isEmpty();
    }

    @Test
    void heldDeductionsTheResetCannotCoverBecomeInsufficientStock() {
        StockDeducted four = Events.deducted(ITEM, 4, 1);
        StockDeducted three = Events.deducted(ITEM, 3, 1);
        StockDeducted one = Events.deducted(ITEM, 1, 1);
        ledger.apply(List.of(four, three, one));

        LedgerOutcome outcome = ledger.apply(List.of(Events.reset(ITEM, 5, 1)));

        assertThat(outcome.released()).isEqualTo(2);
        assertThat(levels.row(ITEM)).isEqualTo(new Row(1, 5, 0, 2));
        assertThat(anomalies.rows).singleElement().satisfies(row -> {
            assertThat(row.eventId).isEqualTo(three.eventId());
            assertThat(row.kind).isEqualTo(AnomalyKind.INSUFFICIENT_STOCK);
            assertThat(row.detail).isEqualTo("held for its reset, which left too few units for it");
        });
    }

    @Test
    void deductionsHeldForAGenerationANewerResetSkippedBecomeStale() {
        ledger.apply(List.of(Events.reset(ITEM, 5, 1)));
        ledger.apply(List.of(Events.deducted(ITEM, 1, 2)));

        LedgerOutcome outcome = ledger.apply(List.of(Events.reset(ITEM, 9, 3)));

        assertThat(outcome.released()).isZero();
        assertThat(levels.row(ITEM)).isEqualTo(new Row(3, 9, 9, 0));
        assertThat(anomalies.rows).singleElement().satisfies(row -> {
            assertThat(row.kind).isEqualTo(AnomalyKind.STALE);
            assertThat(row.detail).isEqualTo("its reset never came before generation 3 replaced it");
        });
    }

    @Test
    void aResetNotNewerThanTheStoredGenerationIsStale() {
        ledger.apply(List.of(Events.reset(ITEM, 5, 2)));
        StockReset late = Events.reset(ITEM, 7, 2);

        LedgerOutcome outcome = ledger.apply(List.of(late));

        assertThat(outcome.applied()).isEmpty();
        assertThat(outcome.anomalies()).singleElement().satisfies(a -> {
            assertThat(a.kind()).isEqualTo(AnomalyKind.STALE);
            assertThat(a.detail()).isEqualTo("reset to generation 2 is not newer than the stored generation 2");
        });
        assertThat(levels.row(ITEM)).isEqualTo(new Row(2, 5, 5, 0));
    }

    @Test
    void aGenerationChangeInsideABatchSplitsTheRun() {
        StockDeducted ofOne = Events.deducted(ITEM, 2, 1);
        StockReset reset = Events.reset(ITEM, 10, 2);
        StockDeducted ofTwo = Events.deducted(ITEM, 3, 2);
        ledger.apply(List.of(Events.reset(ITEM, 5, 1)));

        LedgerOutcome outcome = ledger.apply(List.of(ofOne, reset, ofTwo));

        assertThat(outcome.applied()).containsExactly(ofOne, reset, ofTwo);
        assertThat(levels.row(ITEM)).isEqualTo(new Row(2, 10, 7, 1));
    }

    @Test
    void anEventTooFarAheadOfTheStoredGenerationIsRefused() {
        ledger.apply(List.of(Events.reset(ITEM, 5, 1)));

        assertThatThrownBy(() -> ledger.apply(List.of(Events.reset(ITEM, 5, 1 + MAX_STEP + 1))))
                .isInstanceOf(RefusedEventException.class)
                .hasMessageContaining("more than 10 (flashstock.ledger.max-generation-step) ahead of the stored "
                        + "generation 1");
        assertThatThrownBy(() -> ledger.apply(List.of(Events.deducted(ITEM, 1, 1 + MAX_STEP + 1))))
                .isInstanceOf(RefusedEventException.class);
        assertThatThrownBy(() -> ledger.apply(List.of(Events.deducted("new-item", 1, MAX_STEP + 1))))
                .as("an item without a row counts from generation 0").isInstanceOf(RefusedEventException.class);
        assertThat(levels.row(ITEM)).isEqualTo(new Row(1, 5, 5, 0));
    }

    @Test
    void anEventAtTheLargestStepIsApplied() {
        ledger.apply(List.of(Events.reset(ITEM, 5, 1)));

        LedgerOutcome outcome = ledger.apply(List.of(Events.reset(ITEM, 6, 1 + MAX_STEP)));

        assertThat(outcome.applied()).hasSize(1);
        assertThat(levels.row(ITEM)).isEqualTo(new Row(1 + MAX_STEP, 6, 6, 0));
    }

    @Test
    void aDeductionAtTheLargestStepIsHeldNotRefused() {
        ledger.apply(List.of(Events.reset(ITEM, 5, 1)));

        LedgerOutcome outcome = ledger.apply(List.of(Events.deducted(ITEM, 1, 1 + MAX_STEP)));

        assertThat(outcome.anomalies()).extracting(Anomaly::kind).containsExactly(AnomalyKind.UNKNOWN_GENERATION);
    }

    /** A stock_level row. */
    record Row(long generation, long baseline, long quantity, long eventsApplied) {
    }

    /** stock_level, doing what StockLevels' conditional statements do. */
    private static final class InMemoryStockLevels extends StockLevels {
        private final Map<String, Row> rows = new HashMap<>();
        private int deductions;

        InMemoryStockLevels() {
            super(null);
        }

        Row row(String itemCode) {
            return rows.get(itemCode);
        }

        @Override
        boolean deduct(String itemCode, long generation, long quantity, int events, Instant at) {
            deductions++;
            Row row = rows.get(itemCode);
            if (row == null || row.generation() != generation || row.quantity() < quantity) {
                return false;
            }
            rows.put(itemCode, new Row(generation, row.baseline(), row.quantity() - quantity,
                    row.eventsApplied() + events));
            return true;
        }

        @Override
        boolean resetIfNewer(StockReset reset, long maxStep, Instant at) {
            Row row = rows.get(reset.itemCode());
            if (row == null || row.generation() >= reset.generation() || reset.generation() - row.generation() > maxStep) {
                return false;
            }
            rows.put(reset.itemCode(), new Row(reset.generation(), reset.quantity(), reset.quantity(), 0));
            return true;
        }

        @Override
        void insert(StockReset reset, Instant at) {
            rows.put(reset.itemCode(), new Row(reset.generation(), reset.quantity(), reset.quantity(), 0));
        }

        @Override
        Optional<Level> lock(String itemCode) {
            return Optional.ofNullable(rows.get(itemCode)).map(r -> new Level(r.generation(), r.quantity()));
        }
    }

    /** processed_event. */
    private static final class InMemoryProcessedEvents extends ProcessedEvents {
        private final Set<UUID> ids = new HashSet<>();

        InMemoryProcessedEvents() {
            super(null, null);
        }

        @Override
        Set<UUID> alreadyProcessed(Collection<UUID> eventIds) {
            return eventIds.stream().filter(ids::contains).collect(Collectors.toSet());
        }

        @Override
        void record(List<StockEvent> events, Instant at) {
            events.forEach(e -> assertThat(ids.add(e.eventId())).as("primary key of processed_event").isTrue());
        }
    }

    /** stock_anomaly, its rows in id order. */
    private static final class InMemoryAnomalies extends Anomalies {
        private final List<AnomalyRow> rows = new ArrayList<>();
        private long nextId = 1;

        InMemoryAnomalies() {
            super(null);
        }

        List<AnomalyKind> kinds() {
            return rows.stream().map(r -> r.kind).toList();
        }

        @Override
        void record(List<Anomaly> anomalies, Instant at) {
            for (Anomaly a : anomalies) {
                long quantity = a.event() instanceof StockDeducted d ? d.quantity() : ((StockReset) a.event()).quantity();
                rows.add(new AnomalyRow(nextId++, a.event().eventId(), a.event().itemCode(), a.event().generation(),
                        quantity, a.kind(), a.detail()));
            }
        }

        @Override
        List<Held> heldFor(String itemCode, long generation) {
            return rows.stream().filter(r -> r.itemCode.equals(itemCode) && r.kind == AnomalyKind.UNKNOWN_GENERATION
                    && r.generation == generation).map(r -> new Held(r.id, r.quantity)).toList();
        }

        @Override
        void release(List<Held> held) {
            Set<Long> ids = held.stream().map(Held::id).collect(Collectors.toSet());
            rows.removeIf(r -> ids.contains(r.id));
        }

        @Override
        void reclassify(List<Held> held, AnomalyKind kind, String detail) {
            Set<Long> ids = held.stream().map(Held::id).collect(Collectors.toSet());
            rows.stream().filter(r -> ids.contains(r.id)).forEach(r -> {
                r.kind = kind;
                r.detail = detail;
            });
        }

        @Override
        void staleBefore(String itemCode, long generation) {
            rows.stream().filter(r -> r.itemCode.equals(itemCode) && r.kind == AnomalyKind.UNKNOWN_GENERATION
                    && r.generation < generation).forEach(r -> {
                r.kind = AnomalyKind.STALE;
                r.detail = "its reset never came before generation " + generation + " replaced it";
            });
        }
    }

    private static final class AnomalyRow {
        private final long id;
        private final UUID eventId;
        private final String itemCode;
        private final long generation;
        private final long quantity;
        private AnomalyKind kind;
        private String detail;

        AnomalyRow(long id, UUID eventId, String itemCode, long generation, long quantity, AnomalyKind kind,
                   String detail) {
            this.id = id;
            this.eventId = eventId;
            this.itemCode = itemCode;
            this.generation = generation;
            this.quantity = quantity;
            this.kind = kind;
            this.detail = detail;
        }
    }
}
