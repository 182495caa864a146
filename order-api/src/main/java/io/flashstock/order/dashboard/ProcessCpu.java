package io.flashstock.order.dashboard;

import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The CPU seconds used so far by processes that are not services with a Prometheus registry of order-api's kind,
 * MariaDB and Kafka: neither tells its CPU over its own protocol (Redis does, in {@code INFO cpu}: {@link RedisStats}).
 * Each has sources, summed (a Kafka cluster's brokers):
 * <ul>
 *   <li>{@code file:/…/x.pid}: a pid file on order-api's own host, read from the kernel's accounting of that process
 *   (the local stack, where everything runs on one box);</li>
 *   <li>{@code http://…}: Prometheus text whose {@code process_cpu_seconds_total} is that process's, from an agent
 *   beside it on its own host (Prometheus's JMX exporter in Kafka's JVM, or a process exporter beside MariaDB):
 *   what works in production, where the processes run elsewhere.</li>
 * </ul>
 */
class ProcessCpu {

    static final String CPU_SECONDS = "process_cpu_seconds_total";

    private final Map<String, List<URI>> sources;
    private final RestClient http;

    ProcessCpu(Map<String, List<URI>> sources, RestClient http) {
        // in the page's order whatever the order of the settings (environment variables have none)
        this.sources = new LinkedHashMap<>();
        sources.keySet().stream().sorted(Comparator.comparingInt(ProcessCpu::rank).thenComparing(name -> name))
                .forEach(name -> this.sources.put(name, sources.get(name)));
        this.http = http;
    }

    private static int rank(String name) {
        int index = DashboardCharts.PROCESSES.indexOf(name);
        return index < 0 ? Integer.MAX_VALUE : index;
    }

    /** The names of the processes it reads, in their configured order. */
    List<String> processes() {
        return List.copyOf(sources.keySet());
    }

    /** One reading of every process. */
    Map<String, Reading> readAll() {
        Map<String, Reading> readings = new LinkedHashMap<>();
        sources.forEach((name, uris) -> readings.put(name, read(uris)));
        return readings;
    }

    private Reading read(List<URI> uris) {
        double total = 0;
        for (URI uri : uris) {
            try {
                total += "file".equals(uri.getScheme()) ? fromPidFile(Path.of(uri)) : fromPrometheus(uri);
            } catch (IOException | RestClientException | IllegalStateException | NumberFormatException e) {
                return new Reading(null, uri + ": " + e.getMessage());
            }
        }
        return new Reading(total, null);
    }

    private static double fromPidFile(Path pidFile) throws IOException {
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        Optional<Duration> cpu = ProcessHandle.of(pid).flatMap(p -> p.info().totalCpuDuration());
        return cpu.orElseThrow(() -> new IllegalStateException("no process " + pid + " to read")).toNanos() / 1e9;
    }

    private double fromPrometheus(URI uri) {
        String text = http.get().uri(uri).retrieve().body(String.class);
        Double seconds = Samples.parse(text == null ? "" : text).sum(CPU_SECONDS);
        if (seconds == null) {
            throw new IllegalStateException("no " + CPU_SECONDS + " in its text");
        }
        return seconds;
    }

    /** CPU seconds since the process started, summed over its sources; or why not. */
    record Reading(Double cpuSeconds, String problem) {
    }
}
