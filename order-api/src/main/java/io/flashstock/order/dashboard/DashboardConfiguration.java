package io.flashstock.order.dashboard;

import io.flashstock.order.reconciliation.Reconciliation;
import io.flashstock.order.reconciliation.ReconciliationSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import java.net.URI;
import java.time.Clock;

/**
 * The dashboard: the page at {@code /dashboard} (static, no data in it, so it needs no token; its script sends
 * the token to the snapshot endpoint) and the shared snapshot behind it.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(DashboardSettings.class)
class DashboardConfiguration implements WebMvcConfigurer {

    static final String PAGE = "/dashboard";

    @Override
    public void addViewControllers(ViewControllerRegistry registry) {
        registry.addViewController(PAGE).setViewName("forward:" + PAGE + "/index.html");
        registry.addRedirectViewController(PAGE + "/", PAGE);
    }

    @Bean
    LatestReconciliation dashboardReconciliation(Reconciliation reconciliation, DashboardSettings settings,
                                                 MeterRegistry registry, Clock clock) {
        var gauges = new ReconciliationGauges(registry);
        var latest = new LatestReconciliation(reconciliation, settings.reconcileEvery(), clock, gauges::seen);
        gauges.register(() -> latest.latest().map(LatestReconciliation.Result::report).orElse(null));
        return latest;
    }

    @Bean
    DashboardSnapshots dashboardSnapshots(DashboardSettings settings, ReconciliationSettings reconciliation,
                                          ObjectProvider<PrometheusMeterRegistry> prometheus,
                                          StringRedisTemplate redis, LatestReconciliation latest,
                                          Admin reconciliationKafkaAdmin, RestClient.Builder restClients,
                                          MeterRegistry registry, Clock clock) {
        var scrapes = new ProcessScrapes(prometheus.getIfAvailable(),
                peer(restClients, settings, settings.outboxRelayUrl()),
                peer(restClients, settings, reconciliation.stockConsumerUrl()), EngineRates.FAMILIES);
        var processCpu = new ProcessCpu(settings.processCpu(), peer(restClients, settings, null));
        var history = new SnapshotHistory(settings.historyPoints(), DashboardCharts.SERIES.size());
        var lag = new ConsumerLag(reconciliationKafkaAdmin, reconciliation.topic(), reconciliation.consumerGroup(),
                settings.peerTimeout());
        var snapshots = new DashboardSnapshots(scrapes, new RedisStats(redis), processCpu, lag, latest, history,
                settings.refreshEvery(), clock);
        snapshots.registerMeters(registry);
        if (settings.backgroundSampling()) {
            snapshots.start();
        }
        return snapshots;
    }

    /** A client of another process, with the dashboard's timeout; {@code url} is its base address, if one. */
    private static RestClient peer(RestClient.Builder restClients, DashboardSettings settings, URI url) {
        var requests = new SimpleClientHttpRequestFactory();
        requests.setConnectTimeout(settings.peerTimeout());
        requests.setReadTimeout(settings.peerTimeout());
        var client = restClients.clone().requestFactory(requests);
        return (url == null ? client : client.baseUrl(url.toString())).build();
    }
}
