package io.flashstock.order.dashboard;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Scrapes the Prometheus text of the three services: order-api's own registry in process, the other two over
 * HTTP from their actuator. Only the metric families the page reads are asked for ({@code includedNames}): a
 * whole scrape of the three, every second, cost order-api 2.5 % of a core. A process that does not answer is named
 * with the reason, not a failure of the page.
 */
class ProcessScrapes {

    static final String ORDER_API = "order-api";
    static final String OUTBOX_RELAY = "outbox-relay";
    static final String STOCK_CONSUMER = "stock-consumer";

    private static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry own;
    private final Map<String, RestClient> peers;
    private final Set<String> families;

    /** {@code families}: the metric families to ask for (names without {@code _total}, {@code _bucket}, …). */
    ProcessScrapes(PrometheusMeterRegistry own, RestClient outboxRelay, RestClient stockConsumer,
                   Set<String> families) {
        this.own = own;
        this.peers = Map.of(OUTBOX_RELAY, outboxRelay, STOCK_CONSUMER, stockConsumer);
        this.families = families;
    }

    /** One scrape of each process, in the order the page lists them. */
    Map<String, Scrape> scrapeAll() {
        Map<String, Scrape> scrapes = new LinkedHashMap<>();
        scrapes.put(ORDER_API, own == null ? Scrape.failed("order-api's Prometheus registry is off")
                : new Scrape(Samples.parse(own.scrape(TEXT, families)), null));
        scrapes.put(OUTBOX_RELAY, scrape(OUTBOX_RELAY));
        scrapes.put(STOCK_CONSUMER, scrape(STOCK_CONSUMER));
        return scrapes;
    }

    private Scrape scrape(String process) {
        try {
            String text = peers.get(process).get().uri(uri -> uri.path("/actuator/prometheus")
                    .queryParam("includedNames", String.join(",", families)).build()).retrieve().body(String.class);
            return new Scrape(Samples.parse(text == null ? "" : text), null);
        } catch (RestClientException e) {
            return Scrape.failed(process + " did not answer: " + e.getMessage());
        }
    }

    /** A process's samples, or why there are none. */
    record Scrape(Samples samples, String problem) {

        static Scrape failed(String problem) {
            return new Scrape(Samples.NONE, problem);
        }
    }
}
