package io.flashstock.testsupport;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * A built service jar run as its own JVM, so a test can kill it with SIGKILL (no shutdown hooks, no
 * finally blocks) the way a crash would, and start it again.
 */
public final class ServiceProcess implements AutoCloseable {

    private final Path jar;
    private final List<String> args;
    private final Map<String, String> env;
    private final Path log;
    private final int port;
    private Process process;

    private ServiceProcess(Path jar, int port, List<String> args, Map<String, String> env, Path log) {
        this.jar = jar;
        this.port = port;
        this.args = args;
        this.env = env;
        this.log = log;
    }

    /**
     * The repackaged jar of a module, from {@code <module>/target}; failsafe runs after {@code package},
     * so it is there during integration tests.
     */
    public static ServiceProcess of(String module, int port, List<String> springArgs, Map<String, String> env) {
        Path target = TestInfrastructure.repositoryRoot().resolve(module).resolve("target");
        try (Stream<Path> files = Files.list(target)) {
            Path jar = files.filter(p -> p.getFileName().toString().matches(module + "-[^-]+.*\\.jar"))
                    .filter(p -> !p.getFileName().toString().endsWith("-plain.jar"))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no jar in " + target + ": package first"));
            return new ServiceProcess(jar, port, springArgs, env, target.resolve(module + "-it-" + port + ".log"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public ServiceProcess start() {
        List<String> command = new ArrayList<>(List.of(javaBinary(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-jar", jar.toString(), "--server.port=" + port));
        command.addAll(args);
        var builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(env);
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("could not start " + jar, e);
        }
        return this;
    }

    /** Waits until the service reports ready, failing with the log's path if it dies or takes too long. */
    public ServiceProcess awaitReady(Duration deadline) {
        var client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health/readiness"))
                .timeout(Duration.ofSeconds(2)).build();
        await("readiness of " + jar.getFileName() + " (log " + log + ")").atMost(deadline)
                .pollInterval(Duration.ofMillis(200)).until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("process exited with " + process.exitValue() + "; see " + log);
                    }
                    try {
                        return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
                    } catch (IOException e) {
                        return false;
                    }
                });
        return this;
    }

    /** SIGKILL, then waits for the process to be gone. */
    public void kill() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public int port() {
        return port;
    }

    public Path log() {
        return log;
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    kill();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                kill();
            }
        }
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
