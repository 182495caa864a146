package io.flashstock.order.dashboard;

import io.flashstock.order.dashboard.ProcessScrapes.Scrape;

import java.time.Instant;
import java.util.Map;

/**
 * What the processes' counters, Redis, the CPU of the other processes (MariaDB, Kafka) and stock-consumer's lag
 * (null: unknown) said at one instant; rates are the difference of two.
 */
record EngineSample(Instant at, Map<String, Scrape> scrapes, RedisStats.Reading redis,
                    Map<String, ProcessCpu.Reading> cpu, Double consumerLag) {

    Samples of(String process) {
        Scrape scrape = scrapes.get(process);
        return scrape == null ? Samples.NONE : scrape.samples();
    }
}
