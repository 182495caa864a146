package io.flashstock.order;

import io.flashstock.testsupport.PrivateStack;
import io.lettuce.core.cluster.SlotHash;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * The nodes of a test's own Redis Cluster ({@link PrivateStack#cluster}), each addressed alone with
 * {@code redis-cli}, as an operator would: who serves a slot, failovers, slot migrations, INFO.
 */
public final class RedisClusterNodes {

    private final List<Integer> ports;

    public RedisClusterNodes(PrivateStack stack) {
        this.ports = IntStream.range(0, 6).map(n -> stack.redisPort() + n).boxed().toList();
    }

    public static int slot(String key) {
        return SlotHash.getSlot(key);
    }

    /** {@code redis-cli -p port args…}, its output; fails on an error reply. */
    public String call(int port, String... args) {
        var command = new ArrayList<>(List.of("redis-cli", "-p", Integer.toString(port)));
        command.addAll(Arrays.asList(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0 || out.startsWith("ERR")
                    || out.startsWith("(error)")) {
                throw new IllegalStateException(String.join(" ", command) + ": " + out);
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("could not run redis-cli", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The port of the node that serves {@code slot} now, as the first live node sees it. */
    public int primaryOf(int slot) {
        for (String line : clusterNodes()) {
            String[] f = line.split(" ");
            if (!f[2].contains("master") || f[2].contains("fail")) {
                continue;
            }
            for (int i = 8; i < f.length; i++) {
                if (f[i].startsWith("[")) {
                    continue;
                }
                String[] range = f[i].split("-");
                int first = Integer.parseInt(range[0]);
                int last = range.length > 1 ? Integer.parseInt(range[1]) : first;
                if (slot >= first && slot <= last) {
                    return port(f[1]);
                }
            }
        }
        throw new IllegalStateException("no primary serves slot " + slot);
    }

    /** The port of a replica of the primary on {@code primaryPort}. */
    public int replicaOf(int primaryPort) {
        String primaryId = nodeId(primaryPort);
        return clusterNodes().stream().map(line -> line.split(" "))
                .filter(f -> f[2].contains("slave") && f[3].equals(primaryId)).map(f -> port(f[1])).findFirst()
                .orElseThrow(() -> new IllegalStateException("no replica of " + primaryPort));
    }

    /** The primaries, by port. */
    public List<Integer> primaries() {
        return clusterNodes().stream().map(line -> line.split(" "))
                .filter(f -> f[2].contains("master") && !f[2].contains("fail") && f.length > 8)
                .map(f -> port(f[1])).sorted().toList();
    }

    public String nodeId(int port) {
        return call(port, "cluster", "myid");
    }

    public String role(int port) {
        return call(port, "role").lines().findFirst().orElse("");
    }

    public Properties info(int port, String section) {
        var properties = new Properties();
        call(port, "info", section).lines().filter(l -> l.contains(":"))
                .forEach(l -> properties.setProperty(l.substring(0, l.indexOf(':')), l.substring(l.indexOf(':') + 1)));
        return properties;
    }

    /** How often the node answered this error since it started ({@code INFO errorstats}), 0 for never. */
    public long errors(int port, String error) {
        String stat = info(port, "errorstats").getProperty("errorstat_" + error);
        return stat == null ? 0 : Long.parseLong(stat.replaceAll(".*count=(\\d+).*", "$1"));
    }

    /** How often the node ran the command since it started ({@code INFO commandstats}), 0 for never. */
    public long calls(int port, String command) {
        String stat = info(port, "commandstats").getProperty("cmdstat_" + command);
        return stat == null ? 0 : Long.parseLong(stat.replaceAll("^calls=(\\d+).*", "$1"));
    }

    /**
     * How often the node refused the command before running it since it started: for a cluster node, mostly the
     * redirections ({@code MOVED}, {@code ASK}), which {@code INFO errorstats} does not count.
     */
    public long rejectedCalls(int port, String command) {
        String stat = info(port, "commandstats").getProperty("cmdstat_" + command);
        return stat == null ? 0 : Long.parseLong(stat.replaceAll(".*rejected_calls=(\\d+).*", "$1"));
    }

    public List<Integer> ports() {
        return ports;
    }

    private List<String> clusterNodes() {
        for (int port : ports) {
            try {
                return call(port, "cluster", "nodes").lines().toList();
            } catch (IllegalStateException down) {
                // a node stopped by the test: ask the next
            }
        }
        throw new IllegalStateException("no node of the cluster answers");
    }

    private static int port(String address) {
        String hostPort = address.split("@")[0];
        return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }
}
