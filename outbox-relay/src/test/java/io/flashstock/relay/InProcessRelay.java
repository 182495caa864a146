package io.flashstock.relay;

import io.flashstock.testsupport.TestInfrastructure;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The relay application started in the test's JVM against a test's database and topic. Settings go in as
 * command-line arguments, which win over application.yml.
 */
public final class InProcessRelay implements AutoCloseable {

    private final ConfigurableApplicationContext context;

    private InProcessRelay(ConfigurableApplicationContext context) {
        this.context = context;
    }

    public static InProcessRelay start(OutboxFixture outbox, TestTopic topic, Map<String, String> settings) {
        var infra = TestInfrastructure.get();
        List<String> args = new ArrayList<>(List.of(
                "--spring.datasource.url=" + outbox.jdbcUrl(),
                "--spring.datasource.username=" + infra.dbUser(),
                "--spring.datasource.password=" + infra.dbPassword(),
                "--spring.kafka.bootstrap-servers=" + topic.bootstrapServers(),
                "--flashstock.relay.topic=" + topic.name()));
        settings.forEach((key, value) -> args.add("--" + key + "=" + value));
        return new InProcessRelay(new SpringApplicationBuilder(OutboxRelayApplication.class)
                .web(WebApplicationType.NONE)
                .run(args.toArray(String[]::new)));
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

    @Override
    public void close() {
        context.close();
    }
}
