package io.flashstock.order.dashboard;

import java.util.Map;
import java.util.TreeMap;

/**
 * Percentiles of what a histogram observed between two scrapes, interpolated within a bucket the way
 * Prometheus's {@code histogram_quantile} does, so the page and Grafana agree.
 */
final class Quantiles {

    private Quantiles() {
    }

    /** The three percentiles in milliseconds, or null when nothing was observed between the scrapes. */
    static Percentiles between(TreeMap<Double, Double> before, TreeMap<Double, Double> after) {
        TreeMap<Double, Double> delta = new TreeMap<>();
        after.forEach((le, count) -> delta.put(le, count - before.getOrDefault(le, 0.0)));
        double total = delta.isEmpty() ? 0 : delta.lastEntry().getValue();
        if (total <= 0) {
            return null;
        }
        return new Percentiles(millis(delta, total, 0.50), millis(delta, total, 0.95), millis(delta, total, 0.99));
    }

    /** p50, p95 and p99 in milliseconds. */
    record Percentiles(double p50, double p95, double p99) {
    }

    private static double millis(TreeMap<Double, Double> cumulative, double total, double q) {
        double rank = q * total;
        double lowerBound = 0;
        double lowerCount = 0;
        for (Map.Entry<Double, Double> bucket : cumulative.entrySet()) {
            if (bucket.getValue() >= rank) {
                if (bucket.getKey().isInfinite()) {
                    return lowerBound * 1000; // above the last finite bound: that bound is all that is known
                }
                double inBucket = bucket.getValue() - lowerCount;
                double fraction = inBucket <= 0 ? 1 : (rank - lowerCount) / inBucket;
                return (lowerBound + (bucket.getKey() - lowerBound) * fraction) * 1000;
            }
            lowerBound = bucket.getKey();
            lowerCount = bucket.getValue();
        }
        return lowerBound * 1000;
    }
}
