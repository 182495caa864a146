package io.flashstock.stock.levels;

import io.flashstock.contract.ItemCodes;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.List;

/** What the stock database holds; the reconciliation report reads it over HTTP. */
@RestController
@RequestMapping("/stock")
class StockLevelController {

    /** Upper bound of {@code limit}, so one request cannot read an unbounded table into memory. */
    static final int MAX_ANOMALIES = 10_000;

    private final StockLevelQueries queries;

    StockLevelController(StockLevelQueries queries) {
        this.queries = queries;
    }

    @GetMapping("/items/{itemCode}")
    StockLevelView item(@PathVariable String itemCode) {
        return queries.find(storable(itemCode)).orElseThrow(() -> new UnknownItemException(itemCode));
    }

    @GetMapping("/items")
    List<StockLevelView> items() {
        return queries.all();
    }

    /** Anomalies in the order they were recorded, of one item or of all. */
    @GetMapping("/anomalies")
    List<AnomalyView> anomalies(@RequestParam(required = false) String itemCode,
                                @RequestParam(defaultValue = "1000") int limit) {
        return queries.anomalies(itemCode == null ? null : storable(itemCode),
                Math.max(1, Math.min(limit, MAX_ANOMALIES)));
    }

    private static String storable(String itemCode) {
        if (!ItemCodes.isStorable(itemCode)) {
            throw new InvalidItemCodeException();
        }
        return itemCode;
    }
}
