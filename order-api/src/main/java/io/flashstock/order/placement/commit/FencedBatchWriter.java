package io.flashstock.order.placement.commit;

import io.flashstock.order.placement.guard.DatabaseBreaker;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import org.springframework.stereotype.Component;

import java.util.List;
import java.util.Set;

/**
 * Writes a batch through the {@link DatabaseBreaker}, in one {@link CheckedCommit checked} transaction, and only
 * the orders the {@link LoadFence} admits. One written order stands for the batch when a failed commit is
 * checked: all of them or none is in.
 */
@Component
class FencedBatchWriter implements BatchWriter {

    private final DatabaseBreaker breaker;
    private final CheckedCommit commits;
    private final LoadFence fence;
    private final OrderRows rows;

    FencedBatchWriter(DatabaseBreaker breaker, CheckedCommit commits, LoadFence fence, OrderRows rows) {
        this.breaker = breaker;
        this.commits = commits;
        this.fence = fence;
        this.rows = rows;
    }

    @Override
    public Set<String> write(List<PendingOrder> batch) {
        try {
            return breaker.write(() -> commits.inTransaction(refused -> firstAdmitted(batch, refused), () -> {
                Set<String> refused = fence.refused(batch.stream().map(PendingOrder::order).toList());
                var admitted = batch.stream().filter(pending -> !refused.contains(pending.orderCode())).toList();
                if (!admitted.isEmpty()) {
                    rows.insert(admitted);
                }
                return refused;
            }));
        } catch (CallNotPermittedException unreachable) {
            throw new CheckedCommit.NotWritten(unreachable);
        }
    }

    private static String firstAdmitted(List<PendingOrder> batch, Set<String> refused) {
        return batch.stream().map(PendingOrder::orderCode).filter(code -> !refused.contains(code))
                .findFirst().orElse(null);
    }
}
