package io.flashstock.order.reconciliation;

import com.zaxxer.hikari.HikariDataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import io.flashstock.order.queue.WaitingRoomFigures;
import io.flashstock.order.stock.HeldUnits;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Map;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({ReconciliationSettings.class, ReplicaReadSettings.class})
class ReconciliationConfiguration {

    @Bean(destroyMethod = "close")
    Admin reconciliationKafkaAdmin(ReconciliationSettings properties) {
        int timeoutMs = (int) properties.timeout().toMillis();
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, properties.kafkaBootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs,
                AdminClientConfig.CLIENT_ID_CONFIG, "order-api-reconciliation"));
    }

    @Bean
    OrdersReads reconciliationOrdersReads(DataSource orders, ReplicaReadSettings replica,
                                          ReconciliationSettings settings) throws SQLException {
        return OrdersReads.of(orders.unwrap(HikariDataSource.class), replica, settings.ordersReadTimeout());
    }

    @Bean
    Reconciliation reconciliation(OrdersReads reconciliationOrdersReads, StringRedisTemplate redis, Admin reconciliationKafkaAdmin,
                                  ReconciliationSettings properties, RestClient.Builder restClients, Clock clock,
                                  WaitingRoomFigures waitingRooms, ObjectProvider<HeldUnits> heldUnits) {
        var requests = new SimpleClientHttpRequestFactory();
        requests.setConnectTimeout(properties.timeout());
        requests.setReadTimeout(properties.timeout());
        RestClient stockConsumer = restClients.clone().baseUrl(properties.stockConsumerUrl().toString())
                .requestFactory(requests).build();
        return new Reconciliation(reconciliationOrdersReads, redis, new KafkaPositions(reconciliationKafkaAdmin, properties),
                new StockConsumerLedger(stockConsumer),
                clock, waitingRooms, heldUnits.getIfAvailable());
    }
}
