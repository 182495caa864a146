package io.flashstock.stock.consuming;

import java.util.List;

/**
 * What a replay of the dead-letter topic did.
 *
 * @param read             dead-letter records read (up to the end offsets seen when the replay started)
 * @param replayed         events processed now for the first time: applied, or recorded as anomalies
 * @param anomalies        of those, events recorded as anomalies instead of being applied (see {@code stock_anomaly})
 * @param released         deductions held for a reset that was replayed, applied with it
 * @param alreadyApplied   events already processed, by the listener or an earlier replay: skipped
 * @param stillDead        records that still cannot be applied; they stay in the dead-letter topic
 * @param stillDeadRecords the first 100 of those, with the reason each is refused now
 */
record ReplayReport(long read, long replayed, long anomalies, long released, long alreadyApplied, long stillDead,
                    List<DeadRecord> stillDeadRecords) {

    /** A dead-letter record that is still refused; {@code eventId} from its header, when it has one. */
    record DeadRecord(int partition, long offset, String key, String eventId, String reason) {
    }

    String summary() {
        return read + " read, " + replayed + " replayed (" + anomalies + " as anomalies, " + released
                + " held deductions released), " + alreadyApplied + " already applied, " + stillDead + " still dead";
    }
}
