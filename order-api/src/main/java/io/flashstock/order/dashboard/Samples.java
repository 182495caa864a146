package io.flashstock.order.dashboard;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scrape of a process's Prometheus text: every sample line, by metric name and labels. The dashboard reads
 * the same text Prometheus does, so what the page shows and what Grafana computes come from the same series.
 */
record Samples(List<Sample> samples) {

    static final Samples NONE = new Samples(List.of());

    private static final Pattern LINE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+(\\S+).*");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    record Sample(String name, Map<String, String> labels, double value) {
    }

    static Samples parse(String text) {
        List<Sample> parsed = text.lines().filter(line -> !line.isBlank() && !line.startsWith("#"))
                .map(LINE::matcher).filter(Matcher::matches)
                .map(m -> new Sample(m.group(1), labels(m.group(3)), value(m.group(4))))
                .toList();
        return new Samples(parsed);
    }

    /** The sum of a metric's samples whose labels pass {@code labels}; null when it has none. */
    Double sum(String name, Predicate<Map<String, String>> labels) {
        Double total = null;
        for (Sample s : samples) {
            if (s.name().equals(name) && labels.test(s.labels()) && !Double.isNaN(s.value())) {
                total = (total == null ? 0 : total) + s.value();
            }
        }
        return total;
    }

    Double sum(String name) {
        return sum(name, any -> true);
    }

    /** A histogram's cumulative bucket counts by upper bound, summed over its other labels (tags such as gate). */
    TreeMap<Double, Double> buckets(String histogram) {
        TreeMap<Double, Double> buckets = new TreeMap<>();
        for (Sample s : samples) {
            if (s.name().equals(histogram + "_bucket") && s.labels().containsKey("le")) {
                buckets.merge(value(s.labels().get("le")), s.value(), Double::sum);
            }
        }
        return buckets;
    }

    private static Map<String, String> labels(String text) {
        Map<String, String> labels = new TreeMap<>();
        if (text != null) {
            Matcher m = LABEL.matcher(text);
            while (m.find()) {
                labels.put(m.group(1), m.group(2));
            }
        }
        return labels;
    }

    private static double value(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> {
                try {
                    yield Double.parseDouble(text);
                } catch (NumberFormatException e) {
                    yield Double.NaN;
                }
            }
        };
    }
}
