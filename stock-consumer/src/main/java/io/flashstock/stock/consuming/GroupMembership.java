package io.flashstock.stock.consuming;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.kafka.config.ContainerCustomizer;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * How the listener's consumers are members of the group. A consumer killed with SIGKILL never leaves it: the broker
 * keeps its partitions assigned to it until its session times out, and a process started in its place with new
 * member ids waits for that and for the rebalance after it. As static members (KIP-345), the restarted consumers
 * present the instance ids of the killed ones and are handed their partitions at once, with no rebalance (see
 * docs/stock-consumer.md, "Group membership and restarts").
 * <p>
 * The id goes on the listener's containers only (spring-kafka appends {@code -<thread index>}), not on the consumer
 * factory: the dead-letter replay's consumer is assigned its partitions and never joins the group.
 */
@Configuration(proxyBeanMethods = false)
class GroupMembership {

    private static final Logger log = LoggerFactory.getLogger(GroupMembership.class);

    /** Kafka allows 249 characters; spring-kafka appends the thread index. */
    static final int MAX_INSTANCE_ID = 240;
    private static final Pattern VALID_ID = Pattern.compile("[a-zA-Z0-9._-]{1," + MAX_INSTANCE_ID + "}");
    private static final Pattern INVALID_CHARACTER = Pattern.compile("[^a-zA-Z0-9._-]");

    @Bean
    ContainerCustomizer<Object, Object, ConcurrentMessageListenerContainer<Object, Object>> instanceIdOnListenerContainers(
            ConsumerSettings settings, Environment environment) {
        int port = environment.getProperty("server.port", Integer.class, 8080);
        Optional<String> instanceId = instanceId(settings, port, GroupMembership::hostName);
        instanceId.ifPresentOrElse(
                id -> log.info("the listener's consumers join the group as static members {}-0, {}-1, …", id, id),
                () -> log.info("the listener's consumers join the group as dynamic members ({})",
                        settings.staticMembership() ? "server.port=0 names no instance" : "static membership off"));
        return container -> instanceId.ifPresent(id -> container.getContainerProperties().getKafkaConsumerProperties()
                .setProperty(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, id));
    }

    /**
     * The configured id, else one made of the host name and the configured port (two processes cannot listen on one
     * port of one host); none when static membership is off or the port is random, which names no instance.
     */
    static Optional<String> instanceId(ConsumerSettings settings, int serverPort, Supplier<String> hostName) {
        if (!settings.staticMembership()) {
            return Optional.empty();
        }
        if (settings.instanceId() != null) {
            return Optional.of(settings.instanceId());
        }
        if (serverPort == 0) {
            return Optional.empty();
        }
        String host = INVALID_CHARACTER.matcher(hostName.get()).replaceAll("_");
        String id = "stock-consumer-" + host + "-" + serverPort;
        return Optional.of(id.length() <= MAX_INSTANCE_ID ? id : id.substring(id.length() - MAX_INSTANCE_ID));
    }

    static boolean isValidInstanceId(String id) {
        return VALID_ID.matcher(id).matches();
    }

    private static String hostName() {
        String fromEnvironment = System.getenv("HOSTNAME");
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return fromEnvironment;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
