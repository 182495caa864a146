package io.flashstock.relay;

import io.flashstock.testsupport.TestInfrastructure;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The relay application started in the test's JVM against a test's database and topic, with its web server
 * on a free port. Settings go in as command-line arguments, which win over application.yml; a test's own
 * configuration classes (hooks into the loop) can be added to the application's.
 */
public final class InProcessRelay implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final ConfigurableApplicationContext context;

    private InProcessRelay(ConfigurableApplicationContext context) {
        this.context = context;
    }

    public static InProcessRelay start(OutboxFixture outbox, TestTopic topic, Map<String, String> settings,
                                       Class<?>... testConfigurations) {
        var infra = TestInfrastructure.get();
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("server.port", "0");
        properties.put("spring.datasource.url", outbox.jdbcUrl());
        properties.put("spring.datasource.username", infra.dbUser());
        properties.put("spring.datasource.password", infra.dbPassword());
        properties.put("spring.kafka.bootstrap-servers", topic.bootstrapServers());
        properties.put("flashstock.relay.topic", topic.name());
        properties.putAll(settings);
        String[] args = properties.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue())
                .toArray(String[]::new);
        return new InProcessRelay(new SpringApplicationBuilder(OutboxRelayApplication.class)
                .sources(testConfigurations)
                .run(args));
    }

    public <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    /** The value of a meter of this relay; NaN when it has no value yet. */
    public double gauge(String name) {
        return bean(MeterRegistry.class).get(name).gauge().value();
    }

    public double counter(String name) {
        return bean(MeterRegistry.class).get(name).counter().count();
    }

    /** An address on this relay's web server, e.g. {@code /actuator/health/liveness}. */
    public URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port")
                + pathAndQuery);
    }

    /** The status of {@code GET /actuator/health/liveness}: 200 live, 503 not. */
    public int livenessStatus() {
        return send(HttpRequest.newBuilder(uri("/actuator/health/liveness")).GET().build()).statusCode();
    }

    public static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        context.close();
    }
}
