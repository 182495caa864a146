package io.flashstock.order.placement.commit;

import java.util.List;
import java.util.Set;

/** Writes a batch of the Redis gate's orders in one transaction: the database, as {@link GroupCommit} sees it. */
public interface BatchWriter {

    /**
     * Writes the orders in one transaction, all of them or none.
     *
     * @return the codes of the orders left out because their item's counter was rebuilt since they took stock
     * @throws CheckedCommit.NotWritten when none was written
     * @throws CheckedCommit.OutcomeUnknown when the commit failed and whether it took could not be found out
     */
    Set<String> write(List<PendingOrder> batch);
}
