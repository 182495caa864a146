package io.flashstock.order.reconciliation;

import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.web.InputRules;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.Optional;

/** {@code GET /admin/reconciliation[?itemCode=…]}: behind the admin token like every /admin path. */
@RestController
class ReconciliationController {

    private final Reconciliation reconciliation;
    private final InputRules rules;

    ReconciliationController(Reconciliation reconciliation, InputRules rules) {
        this.reconciliation = reconciliation;
        this.rules = rules;
    }

    /** An item code no item can have is refused before any query: a non-ASCII one would fail in SQL (ascii column). */
    @GetMapping("/admin/reconciliation")
    ReconciliationReport report(@RequestParam Optional<String> itemCode) {
        Optional<String> item = itemCode.filter(c -> !c.isBlank());
        item.ifPresent(rules::checkItemCode);
        try {
            return reconciliation.report(item);
        } catch (IllegalStateException e) {
            // Kafka did not answer: without offsets, no invariant about the pipeline can be judged
            throw new RefusedException(Refusal.RECONCILIATION_SOURCE_UNAVAILABLE, e.getMessage(), e);
        }
    }
}
