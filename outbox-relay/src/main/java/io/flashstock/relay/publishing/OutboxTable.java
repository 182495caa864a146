package io.flashstock.relay.publishing;

import io.flashstock.contract.OutboxStatus;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.List;

/**
 * The relay's statements on {@code orders.outbox_event}.
 * <p>
 * Every time the relay writes or compares comes from the database's clock ({@code UTC_TIMESTAMP(6)}):
 * leases then mean the same on every relay host whatever their clock skew, and no instant is bound as a
 * parameter, which MySQL Connector/J would cut to whole seconds on MariaDB (it reads the server version
 * "5.5.5-10.11…" as 5.5.5, before fractional seconds).
 */
@Component
public class OutboxTable {

    /** Index {@code ix_outbox_claim (status, id)} serves the filter and the order. */
    private static final String SELECT_CLAIMABLE = """
            SELECT id, event_id, aggregate_key, event_type, payload, created_at, attempts, failures
            FROM outbox_event
            WHERE status = :new AND available_at <= UTC_TIMESTAMP(6)
            ORDER BY id
            LIMIT :limit
            FOR UPDATE SKIP LOCKED""";

    private static final String LEASE = """
            UPDATE outbox_event
            SET claimed_by = :instance, available_at = UTC_TIMESTAMP(6) + INTERVAL :leaseMicros MICROSECOND,
                attempts = attempts + 1
            WHERE id IN (:ids)""";

    /** Not guarded by claimed_by: an acknowledged record was published, whoever holds the claim now. */
    private static final String MARK_SENT = """
            UPDATE outbox_event SET status = :sent, sent_at = UTC_TIMESTAMP(6) WHERE id IN (:ids)""";

    /**
     * Guarded by the claim, so a relay whose lease ran out does not cut short another instance's lease,
     * and by status, so a failure never overrides a row someone else got acknowledged meanwhile.
     */
    private static final String RECORD_FAILURE = """
            UPDATE outbox_event
            SET status = ?, available_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, last_error = ?,
                failures = failures + ?
            WHERE id = ? AND claimed_by = ? AND status = ?""";

    /** {@code last_error} is a VARCHAR(512). */
    private static final int LAST_ERROR_MAX_LENGTH = 512;

    private final JdbcClient jdbc;
    private final JdbcTemplate batchJdbc;
    private final TransactionTemplate transaction;

    public OutboxTable(JdbcClient jdbc, JdbcTemplate batchJdbc, TransactionTemplate transaction) {
        this.jdbc = jdbc;
        this.batchJdbc = batchJdbc;
        this.transaction = transaction;
    }

    /**
     * Claims up to {@code limit} due NEW rows in id order and leases them to {@code instance} for
     * {@code lease}, in one short transaction: rows other relays have locked are skipped, and no lock is
     * held once this returns.
     */
    public List<OutboxRow> claim(String instance, int limit, Duration lease) {
        return transaction.execute(status -> {
            List<OutboxRow> rows = jdbc.sql(SELECT_CLAIMABLE)
                    .param("new", OutboxStatus.NEW.name())
                    .param("limit", limit)
                    .query((rs, n) -> new OutboxRow(rs.getLong("id"), rs.getString("event_id"),
                            rs.getString("aggregate_key"), rs.getString("event_type"), rs.getString("payload"),
                            rs.getTimestamp("created_at").toInstant(), rs.getInt("attempts") + 1,
                            rs.getInt("failures")))
                    .list();
            if (!rows.isEmpty()) {
                jdbc.sql(LEASE)
                        .param("instance", instance)
                        .param("leaseMicros", micros(lease))
                        .param("ids", rows.stream().map(OutboxRow::id).toList())
                        .update();
            }
            return rows;
        });
    }

    public void markSent(List<Long> ids) {
        jdbc.sql(MARK_SENT)
                .param("sent", OutboxStatus.SENT.name())
                .param("ids", ids)
                .update();
    }

    /**
     * Records failed sends: each row goes back to NEW with a retry time or becomes DEAD; a failure of the
     * record itself also counts in its {@code failures}.
     *
     * @return for each failure, whether the row was still this instance's claim and got updated
     */
    public boolean[] recordFailures(String instance, List<Failure> failures) {
        int[][] counts = batchJdbc.batchUpdate(RECORD_FAILURE, failures, failures.size(), (ps, failure) -> {
            ps.setString(1, failure.status().name());
            ps.setLong(2, micros(failure.retryAfter()));
            ps.setString(3, truncate(failure.error()));
            ps.setInt(4, failure.ownFailure() ? 1 : 0);
            ps.setLong(5, failure.id());
            ps.setString(6, instance);
            ps.setString(7, OutboxStatus.NEW.name());
        });
        boolean[] applied = new boolean[failures.size()];
        int i = 0;
        for (int[] chunk : counts) {
            for (int count : chunk) {
                applied[i++] = count > 0;
            }
        }
        return applied;
    }

    private static long micros(Duration duration) {
        return duration.toNanos() / 1_000;
    }

    private static String truncate(String error) {
        return error.length() <= LAST_ERROR_MAX_LENGTH ? error : error.substring(0, LAST_ERROR_MAX_LENGTH);
    }

    /**
     * A row whose send failed.
     *
     * @param status NEW to be claimed again after {@code retryAfter}, or DEAD
     * @param ownFailure whether the record itself was refused, rather than the broker being unreachable
     */
    public record Failure(long id, OutboxStatus status, Duration retryAfter, String error, boolean ownFailure) {
    }
}
