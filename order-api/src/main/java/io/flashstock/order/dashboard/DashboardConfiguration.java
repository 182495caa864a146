package io.flashstock.order.dashboard;

import io.flashstock.order.reconciliation.Reconciliation;
import io.flashstock.order.reconciliation.ReconciliationSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
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
                                          RestClient.Builder restClients, Clock clock) {
        var scrapes = new ProcessScrapes(prometheus.getIfAvailable(),
                peer(restClients, settings.outboxRelayUrl(), settings),
                peer(restClients, reconciliation.stockConsumerUrl(), settings));
        return new DashboardSnapshots(scrapes, new RedisStats(redis), latest, settings.refreshEvery(), clock);
    }

    private static RestClient peer(RestClient.Builder restClients, URI url, DashboardSettings settings) {
        var requests = new SimpleClientHttpRequestFactory();
        requests.setConnectTimeout(settings.peerTimeout());
        requests.setReadTimeout(settings.peerTimeout());
        return restClients.clone().baseUrl(url.toString()).requestFactory(requests).build();
    }
}
