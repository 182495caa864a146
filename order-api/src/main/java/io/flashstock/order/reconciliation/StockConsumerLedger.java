package io.flashstock.order.reconciliation;

import io.flashstock.order.reconciliation.ReconciliationSnapshot.StockLedger;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The reconciliation's read of stock-consumer: its ledger of every item ({@code GET /stock/items}). */
final class StockConsumerLedger {

    private final RestClient stockConsumer;

    StockConsumerLedger(RestClient stockConsumer) {
        this.stockConsumer = stockConsumer;
    }

    /**
     * An unreachable stock-consumer fails the stock invariants with the reason instead of failing the whole
     * report: the rest of it is what an operator needs most at that moment.
     */
    StockLedger read() {
        try {
            StockLedgerEntry[] entries = stockConsumer.get().uri("/stock/items").retrieve()
                    .body(StockLedgerEntry[].class);
            return new StockLedger(entries == null ? Map.of() : Arrays.stream(entries)
                    .collect(Collectors.toMap(StockLedgerEntry::itemCode, Function.identity())), null);
        } catch (RestClientException e) {
            return new StockLedger(Map.of(), "stock-consumer did not answer: " + e.getMessage());
        }
    }
}
