package io.flashstock.stock.consuming;

import io.flashstock.stock.ledger.RefusedEventException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.DuplicateKeyException;

/**
 * Tells a failure that a record causes every time from one that passes. A record is the cause when the ledger
 * refuses its event, or when the database refuses its values (a data or constraint error: SQLSTATE classes 22 and
 * 23). A duplicate key is the exception: it means a concurrent consumer committed the same event, and the retry
 * finds it processed. Everything else (database or Redis unreachable, lock waits, deadlocks, a socket timeout) is
 * the moment's, and is retried without limit.
 */
final class RecordFailures {

    private RecordFailures() {
    }

    static boolean causedByRecord(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RefusedEventException) {
                return true;
            }
            if (t instanceof DuplicateKeyException) {
                return false;
            }
            if (t instanceof DataIntegrityViolationException) {
                return true;
            }
        }
        return false;
    }
}
