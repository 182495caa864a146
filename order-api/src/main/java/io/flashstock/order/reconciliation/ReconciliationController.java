package io.flashstock.order.reconciliation;

import io.flashstock.order.web.ProblemException;
import io.flashstock.order.web.ProblemType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.Optional;

/** {@code GET /admin/reconciliation[?itemCode=…]}: behind the admin token like every /admin path. */
@RestController
class ReconciliationController {

    private final Reconciliation reconciliation;

    ReconciliationController(Reconciliation reconciliation) {
        this.reconciliation = reconciliation;
    }

    @GetMapping("/admin/reconciliation")
    ReconciliationReport report(@RequestParam Optional<String> itemCode) {
        try {
            return reconciliation.report(itemCode.filter(c -> !c.isBlank()));
        } catch (IllegalStateException e) {
            // Kafka did not answer: without offsets, no invariant about the pipeline can be judged
            throw new ProblemException(ProblemType.RECONCILIATION_SOURCE_UNAVAILABLE, e.getMessage(), e);
        }
    }
}
