package io.flashstock.order.dashboard;

import java.util.List;

/**
 * What {@code GET /admin/dashboard/history} answers: the charts, and every point order-api holds, oldest first,
 * as columns (epoch milliseconds, then each series' values in {@code charts}' order; null where nothing was
 * measured). {@code capacity} points of {@code everyMillis} fit in the ring's {@code bytes}.
 */
record DashboardHistory(long everyMillis, int capacity, long bytes, List<ChartView> charts, long[] at,
                        List<List<Float>> values) {

    record ChartView(String title, String unit, List<SeriesView> series) {
    }

    record SeriesView(String key, String label) {
    }

    static DashboardHistory of(SnapshotHistory history, long everyMillis) {
        SnapshotHistory.Columns columns = history.columns();
        List<ChartView> charts = DashboardCharts.CHARTS.stream().map(c -> new ChartView(c.title(), c.unit(),
                c.series().stream().map(s -> new SeriesView(s.key(), s.label())).toList())).toList();
        return new DashboardHistory(everyMillis, history.capacity(), history.bytes(), charts, columns.at(),
                columns.values());
    }
}
