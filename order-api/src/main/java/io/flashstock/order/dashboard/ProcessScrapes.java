package io.flashstock.order.dashboard;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Scrapes the Prometheus text of the three services: order-api's own registry in process, the other two over
 * HTTP from their actuator. A process that does not answer is named with the reason, not a failure of the page.
 */
class ProcessScrapes {

    static final String ORDER_API = "order-api";
    static final String OUTBOX_RELAY = "outbox-relay";
    static final String STOCK_CONSUMER = "stock-consumer";

    private final PrometheusMeterRegistry own;
    private final Map<String, RestClient> peers;

    ProcessScrapes(PrometheusMeterRegistry own, RestClient outboxRelay, RestClient stockConsumer) {
        this.own = own;
        this.peers = Map.of(OUTBOX_RELAY, outboxRelay, STOCK_CONSUMER, stockConsumer);
    }

    /** One scrape of each process, in the order the page lists them. */
    Map<String, Scrape> scrapeAll() {
        Map<String, Scrape> scrapes = new LinkedHashMap<>();
        scrapes.put(ORDER_API, own == null ? Scrape.failed("order-api's Prometheus registry is off")
                : new Scrape(Samples.parse(own.scrape()), null));
        scrapes.put(OUTBOX_RELAY, scrape(OUTBOX_RELAY));
        scrapes.put(STOCK_CONSUMER, scrape(STOCK_CONSUMER));
        return scrapes;
    }

    private Scrape scrape(String process) {
        try {
            String text = peers.get(process).get().uri("/actuator/prometheus").retrieve().body(String.class);
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
