package io.flashstock.order.reconciliation;

import io.flashstock.contract.OutboxStatus;
import io.flashstock.order.reconciliation.ReconciliationReport.Invariant;
import io.flashstock.order.reconciliation.ReconciliationReport.ItemReconciliation;
import io.flashstock.order.reconciliation.ReconciliationReport.KafkaPosition;
import io.flashstock.order.reconciliation.ReconciliationReport.OutboxCounts;
import io.flashstock.order.reconciliation.ReconciliationReport.PartitionPosition;
import io.flashstock.order.reconciliation.ReconciliationReport.Totals;
import io.flashstock.order.queue.WaitingRoomFigures;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.HeldUnits;
import io.flashstock.order.stock.StockKeys;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Builds the reconciliation report: for each item with a baseline, what its gate (the Redis counter, or the
 * {@code db_remaining} of a DB-lock item), the orders, the outbox, Kafka and the stock database say, and
 * whether they agree.
 */
public class Reconciliation {

    static final String REDIS_MATCHES_ORDERS = "redis-matches-orders";
    static final String DB_GATE_MATCHES_ORDERS = "db-gate-matches-orders";
    static final String OUTBOX_MATCHES_ORDERS = "outbox-matches-orders";
    static final String PIPELINE_DRAINED = "pipeline-drained";
    static final String STOCK_DB_MATCHES_ORDERS = "stock-db-matches-orders";
    static final String EVENTS_APPLIED_MATCH_ORDERS = "events-applied-match-orders";
    static final String NO_ANOMALIES = "no-anomalies";
    static final String NOT_OVERSOLD = "not-oversold";

    private final OrdersReads ordersReads;
    private final StringRedisTemplate redis;
    private final KafkaPositions kafka;
    private final RestClient stockConsumer;
    private final Clock clock;
    private final WaitingRoomFigures waitingRooms;
    private final HeldUnits heldUnits;

    /**
     * {@code waitingRooms}: the waiting rooms' tickets and admissions; {@code heldUnits}: the units the token gate's
     * unused tokens hold, outside the counter and the orders (null without a token gate).
     */
    public Reconciliation(OrdersReads ordersReads, StringRedisTemplate redis, KafkaPositions kafka,
                          RestClient stockConsumer, Clock clock, WaitingRoomFigures waitingRooms, HeldUnits heldUnits) {
        this.heldUnits = heldUnits;
        this.ordersReads = ordersReads;
        this.redis = redis;
        this.kafka = kafka;
        this.stockConsumer = stockConsumer;
        this.clock = clock;
        this.waitingRooms = waitingRooms;
    }

    /** The report for one item, or for every item with a baseline when {@code itemCode} is empty. */
    public ReconciliationReport report(Optional<String> itemCode) {
        // "drained" promises that the stock database applied every event of every row counted here. So the
        // consumer's progress is read first, the items next, the unsent rows after them, the topic's end last:
        // a row counted is then unsent, or sent before its end was read, so either below the committed offsets
        // (applied before the stock database was read) or in the lag
        KafkaPositions.Consumed consumed = kafka.consumed();
        OrdersReads.Source source = ordersReads.begin();
        JdbcClient orders = source.jdbc();
        List<Baseline> baselines = baselines(orders, itemCode);
        Map<String, OrderTotals> totals = orderTotals(orders, itemCode);
        StockLedger ledger = stockLedger();
        long unsentEverywhere = orders.sql("SELECT COUNT(*) FROM outbox_event WHERE status = ?")
                .param(OutboxStatus.NEW.name()).query(Long.class).single();
        KafkaPosition position = kafka.against(consumed);
        boolean drained = unsentEverywhere == 0 && position.lag() == 0;

        List<ItemReconciliation> items = new ArrayList<>();
        for (Baseline b : baselines) {
            items.add(reconcile(b, totals.getOrDefault(b.itemCode(), OrderTotals.NONE), position, ledger));
        }
        boolean exact = items.stream().flatMap(i -> i.invariants().stream()).allMatch(Invariant::holds);
        return new ReconciliationReport(clock.instant(), exact, drained, position, items, source.read());
    }

    private ItemReconciliation reconcile(Baseline b, OrderTotals t, KafkaPosition position,
                                         StockLedger ledger) {
        StockLedgerEntry stock = ledger.entries().get(b.itemCode());
        long expectedRemaining = b.baseline() - t.quantity();
        Long redisRemaining = Optional.ofNullable(redis.opsForValue().get(StockKeys.counter(b.itemCode())))
                .map(Long::valueOf).orElse(null);
        int partition = position.partitions().isEmpty() ? 0
                : KafkaPositions.partitionOf(b.itemCode(), position.partitions().size());
        long partitionLag = position.partitions().stream().filter(p -> p.partition() == partition)
                .mapToLong(PartitionPosition::lag).sum();
        long unsent = t.unsent();
        long dead = t.dead();

        Long stockQuantity = stock == null || stock.generation() != b.generation() ? null : stock.quantity();
        long retired = t.count() - t.withOutboxRow();
        long provenRetired = provenRetired(retired, t, stockQuantity == null ? 0 : stock.eventsApplied());

        // a token item's unused tokens hold units that are in no order yet: Redis = baseline − Σ orders − Σ held
        HeldUnits.Outstanding tokens = b.gate() == Gate.TOKEN && heldUnits != null
                ? heldUnits.outstanding(b.itemCode(), b.generation()) : null;
        List<Invariant> invariants = new ArrayList<>();
        invariants.add(b.gate() == Gate.DB_LOCK ? dbGateInvariant(b, expectedRemaining)
                : redisInvariant(expectedRemaining - (tokens == null ? 0 : tokens.units()), redisRemaining,
                inDoubtUnits(b.itemCode()), tokens));
        invariants.add(Invariant.of(OUTBOX_MATCHES_ORDERS, t.count(), t.withOutboxRow() + provenRetired,
                (retired - provenRetired) + " orders have no outbox row: never written, or deleted once sent but "
                        + "not yet applied in the stock database (" + provenRetired + " more were deleted once applied)"));
        invariants.add(Invariant.of(PIPELINE_DRAINED, 0, unsent + partitionLag,
                unsent + " outbox rows unsent, " + partitionLag + " records not yet consumed on partition " + partition));
        String stockDetail = ledger.problem() != null ? ledger.problem()
                : stock == null ? "stock database has no row for the item"
                : stock.generation() != b.generation()
                ? "stock database is at generation " + stock.generation() + ", orders at " + b.generation()
                : dead > 0 ? dead + " outbox rows are DEAD and never reached Kafka"
                : "stock database differs from baseline − Σ orders";
        invariants.add(Invariant.of(STOCK_DB_MATCHES_ORDERS, expectedRemaining, stockQuantity, stockDetail));
        invariants.add(Invariant.of(EVENTS_APPLIED_MATCH_ORDERS, t.count(),
                stockQuantity == null ? null : stock.eventsApplied(), stockDetail));
        invariants.add(Invariant.of(NO_ANOMALIES, 0, stock == null ? 0L : stock.anomalies(),
                "stock-consumer recorded deductions it could not apply (GET /stock/anomalies)"));
        // last, so the invariants clients read by position keep theirs
        invariants.add(Invariant.atMost(NOT_OVERSOLD, b.baseline(), t.quantity(),
                "oversold by " + (t.quantity() - b.baseline()) + " units: the orders of generation " + b.generation()
                        + " commit " + t.quantity() + " units of a baseline of " + b.baseline()));

        return new ItemReconciliation(b.itemCode(), b.gate(), b.generation(), b.baseline(), b.perUserLimit(),
                redisRemaining, b.dbRemaining(), expectedRemaining, new Totals(t.count(), t.quantity()),
                new OutboxCounts(t.withOutboxRow(), t.quantityWithOutboxRow(), unsent,
                        t.sent(), dead, retired),
                partition, partitionLag, stock, invariants,
                b.gate() == Gate.QUEUE ? waitingRooms.of(b.itemCode(), b.generation()) : null, tokens);
    }

    /**
     * Orders whose outbox row is gone that the stock database proves published. outbox-relay deletes a row only
     * once Kafka acknowledged it and its retention passed (SentEventRetention), so such an order's event is
     * expected among those the stock database applied for the generation. Of those, as many as there are rows
     * still present that may have reached it (sent, dead, or claimed and not yet marked sent) are set aside; the
     * rest can only be the deleted rows' events. Exact once the item's events are all consumed; while some are
     * in flight it proves fewer, never more.
     */
    private static long provenRetired(long retired, OrderTotals t, long eventsApplied) {
        long appliedWithoutRow = eventsApplied - t.sent() - t.dead() - t.claimedUnsent();
        return Math.max(0, Math.min(retired, appliedWithoutRow));
    }

    private static Invariant redisInvariant(long expectedRemaining, Long redisRemaining, long inDoubtUnits,
                                            HeldUnits.Outstanding tokens) {
        String detail;
        if (expectedRemaining < 0) {
            detail = oversold("the Redis counter", expectedRemaining);
        } else if (tokens != null && tokens.units() > 0 && redisRemaining != null) {
            detail = "Redis differs from baseline − Σ orders − " + tokens.units() + " units held by " + tokens.count()
                    + " unused tokens: drift (a crash between the Redis step and the commit?)";
        } else if (redisRemaining == null) {
            detail = "Redis has no counter for the item (Redis restarted?): reload it from the orders";
        } else if (inDoubtUnits > 0 && expectedRemaining - redisRemaining == inDoubtUnits) {
            detail = "orders whose commit is in doubt hold " + inDoubtUnits + " units: the order-api that took them "
                    + "settles them once the database answers, or, if it stopped, another one";
        } else {
            detail = "Redis differs from baseline − Σ orders" + (inDoubtUnits > 0 ? " by other than the "
                    + inDoubtUnits + " units orders in doubt hold" : "")
                    + ": drift (a crash between the Redis step and the commit?)";
        }
        return Invariant.of(REDIS_MATCHES_ORDERS, expectedRemaining, redisRemaining, detail);
    }

    /** Units taken by orders whose commit could not be confirmed yet (StockKeys.inDoubt): each entry starts with them. */
    private long inDoubtUnits(String itemCode) {
        return redis.opsForHash().values(StockKeys.inDoubt(itemCode)).stream()
                .mapToLong(entry -> Long.parseLong(((String) entry).split(":", 2)[0])).sum();
    }

    /** A DB-lock item's counter is its row's db_remaining, which commits with each order. */
    private static Invariant dbGateInvariant(Baseline b, long expectedRemaining) {
        return Invariant.of(DB_GATE_MATCHES_ORDERS, expectedRemaining, b.dbRemaining(), expectedRemaining < 0
                ? oversold("db_remaining", expectedRemaining)
                : "db_remaining differs from baseline − Σ orders, though both commit in one transaction: changed by hand?");
    }

    /** Neither gate lets its counter go below zero, so an oversold item's cannot match: say so, not drift. */
    private static String oversold(String counter, long expectedRemaining) {
        return counter + " cannot match: the item is oversold (baseline − Σ orders = " + expectedRemaining
                + "; see " + NOT_OVERSOLD + ")";
    }

    private record Baseline(String itemCode, long generation, long baseline, Integer perUserLimit, Gate gate,
                            Long dbRemaining) {
    }

    /**
     * An item's orders of its current generation, and the states of their outbox rows; {@code claimedUnsent}
     * of the unsent ones were claimed by a relay at least once, so they may have been published.
     */
    private record OrderTotals(long count, long quantity, long withOutboxRow, long quantityWithOutboxRow,
                               long unsent, long sent, long dead, long claimedUnsent) {
        static final OrderTotals NONE = new OrderTotals(0, 0, 0, 0, 0, 0, 0, 0);
    }

    private static List<Baseline> baselines(JdbcClient orders, Optional<String> itemCode) {
        return orders.sql("SELECT item_code, generation, baseline, per_user_limit, gate, db_remaining FROM stock_item"
                        + itemCode.map(c -> " WHERE item_code = :item").orElse("") + " ORDER BY item_code")
                .params(itemParams(itemCode))
                .query((rs, n) -> new Baseline(rs.getString(1), rs.getLong(2), rs.getLong(3),
                        rs.getObject(4, Integer.class), Gate.fromColumn(rs.getString(5)), rs.getObject(6, Long.class)))
                .list();
    }

    /** Orders of each item's current generation, and how many of them have their outbox row. */
    private static Map<String, OrderTotals> orderTotals(JdbcClient orders, Optional<String> itemCode) {
        return orders.sql("""
                        SELECT o.item_code, COUNT(*), COALESCE(SUM(o.quantity), 0), COUNT(e.id),
                               COALESCE(SUM(CASE WHEN e.id IS NULL THEN 0 ELSE o.quantity END), 0),
                               COALESCE(SUM(CASE WHEN e.status = 'NEW' THEN 1 ELSE 0 END), 0),
                               COALESCE(SUM(CASE WHEN e.status = 'SENT' THEN 1 ELSE 0 END), 0),
                               COALESCE(SUM(CASE WHEN e.status = 'DEAD' THEN 1 ELSE 0 END), 0),
                               COALESCE(SUM(CASE WHEN e.status = 'NEW' AND e.attempts > 0 THEN 1 ELSE 0 END), 0)
                        FROM purchase_order o
                        JOIN stock_item s ON s.item_code = o.item_code AND s.generation = o.generation
                        LEFT JOIN outbox_event e ON e.event_id = o.event_id
                        """ + itemCode.map(c -> " WHERE o.item_code = :item").orElse("") + " GROUP BY o.item_code")
                .params(itemParams(itemCode))
                .query((rs, n) -> Map.entry(rs.getString(1),
                        new OrderTotals(rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6),
                                rs.getLong(7), rs.getLong(8), rs.getLong(9))))
                .list().stream().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    /** What stock-consumer reports, or why it could not. */
    private record StockLedger(Map<String, StockLedgerEntry> entries, String problem) {
    }

    /**
     * An unreachable stock-consumer fails the stock invariants with the reason instead of failing the whole
     * report: the rest of it is what an operator needs most at that moment.
     */
    private StockLedger stockLedger() {
        try {
            StockLedgerEntry[] entries = stockConsumer.get().uri("/stock/items").retrieve()
                    .body(StockLedgerEntry[].class);
            return new StockLedger(entries == null ? Map.of() : Arrays.stream(entries)
                    .collect(Collectors.toMap(StockLedgerEntry::itemCode, Function.identity())), null);
        } catch (RestClientException e) {
            return new StockLedger(Map.of(), "stock-consumer did not answer: " + e.getMessage());
        }
    }

    private static Map<String, Object> itemParams(Optional<String> itemCode) {
        return itemCode.<Map<String, Object>>map(c -> Map.of("item", c)).orElse(Map.of());
    }
}
