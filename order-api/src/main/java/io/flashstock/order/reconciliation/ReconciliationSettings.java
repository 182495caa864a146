package io.flashstock.order.reconciliation;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.net.URI;
import java.time.Duration;

/**
 * Where the reconciliation report looks beyond order-api's own database and Redis.
 *
 * @param stockConsumerUrl base URL of stock-consumer, whose {@code GET /stock/items} reports the stock database
 * @param kafkaBootstrapServers the broker holding the stock topic
 * @param topic the stock events topic
 * @param consumerGroup stock-consumer's consumer group, whose committed offsets measure the lag
 * @param timeout how long one call to Kafka or to stock-consumer may take
 * @param ordersReadTimeout how long one read of the orders database may take: the report reads on a small pool of
 *                          its own, since a full report under load outlasts the order path's 2 s socket timeout
 */
@ConfigurationProperties("flashstock.reconciliation")
public record ReconciliationSettings(
        @DefaultValue("http://127.0.0.1:8082") URI stockConsumerUrl,
        @DefaultValue("127.0.0.1:9092") String kafkaBootstrapServers,
        @DefaultValue("stock-events") String topic,
        @DefaultValue("stock-consumer") String consumerGroup,
        @DefaultValue("5s") Duration timeout,
        @DefaultValue("30s") Duration ordersReadTimeout) {
}
