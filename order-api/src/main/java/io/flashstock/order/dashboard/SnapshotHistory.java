package io.flashstock.order.dashboard;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The last {@code capacity} points of the dashboard's series, in a ring allocated once: one time and one float per
 * series per point, so its memory is fixed ({@link #bytes()}) however long order-api runs. A float keeps a rate or
 * a latency to 7 significant digits, more than any chart shows.
 */
final class SnapshotHistory {

    private final long[] at;
    private final float[][] values;
    private int next;
    private int size;

    SnapshotHistory(int capacity, int seriesCount) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a history holds at least one point, not " + capacity);
        }
        this.at = new long[capacity];
        this.values = new float[seriesCount][capacity];
    }

    /** The ring's arrays' payload: 8 bytes per point for its time and 4 per series per point. */
    long bytes() {
        return (long) at.length * (Long.BYTES + (long) Float.BYTES * values.length);
    }

    int capacity() {
        return at.length;
    }

    /** Adds a point at {@code epochMillis}; when full, the oldest point gives way. */
    synchronized void add(long epochMillis, float[] point) {
        if (point.length != values.length) {
            throw new IllegalArgumentException(point.length + " values for " + values.length + " series");
        }
        at[next] = epochMillis;
        for (int s = 0; s < values.length; s++) {
            values[s][next] = point[s];
        }
        next = (next + 1) % at.length;
        size = Math.min(size + 1, at.length);
    }

    /** The points held, oldest first: their times, and per series its values (null where nothing was measured). */
    synchronized Columns columns() {
        long[] times = new long[size];
        List<List<Float>> series = new ArrayList<>(values.length);
        int first = (next - size + at.length) % at.length;
        for (int i = 0; i < size; i++) {
            times[i] = at[(first + i) % at.length];
        }
        for (float[] column : values) {
            float[] ordered = new float[size];
            for (int i = 0; i < size; i++) {
                ordered[i] = column[(first + i) % at.length];
            }
            series.add(boxed(ordered));
        }
        return new Columns(times, series);
    }

    /** The values as JSON will show them: null where nothing was measured (NaN). */
    static List<Float> boxed(float[] values) {
        Float[] out = new Float[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = Float.isNaN(values[i]) ? null : values[i];
        }
        return Arrays.asList(out);
    }

    /** Epoch milliseconds of each point, and each series' values in the same order. */
    record Columns(long[] at, List<List<Float>> values) {
    }
}
