package io.flashstock.stock.consuming;

import io.flashstock.contract.StockEvent;
import io.flashstock.stock.ledger.LedgerOutcome;
import io.flashstock.stock.ledger.StockLedger;
import io.flashstock.stock.locking.ItemLocks;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

import java.util.List;

/**
 * The batch listener. Valid events are applied in one transaction under the locks of their items; only then are
 * the rejected records dead-lettered, so a retry after a failed dead-letter send finds the events already
 * processed. Whatever this method throws is transient and the whole batch is retried (see
 * {@link ConsumingConfiguration}); offsets are committed once it returns, after the commit.
 */
@Component
class StockEventListener {

    private final ItemLocks locks;
    private final StockLedger ledger;
    private final DeadLetters deadLetters;
    private final LedgerMetrics metrics;

    StockEventListener(ItemLocks locks, StockLedger ledger, DeadLetters deadLetters, LedgerMetrics metrics) {
        this.locks = locks;
        this.ledger = ledger;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
    }

    @KafkaListener(id = ConsumingConfiguration.LISTENER_ID, idIsGroup = false,
            topics = "${flashstock.consumer.topic}", batch = "true")
    void onBatch(List<ConsumerRecord<String, StockEvent>> records) {
        long started = System.nanoTime();
        Triage triage = Triage.of(records);
        if (!triage.events().isEmpty()) {
            LedgerOutcome outcome = locks.callLocked(triage.itemCodes(), () -> ledger.apply(triage.events()));
            metrics.record(outcome, System.nanoTime() - started);
        }
        deadLetters.publish(triage.rejected());
    }
}
