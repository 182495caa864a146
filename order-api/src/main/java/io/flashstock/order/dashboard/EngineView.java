package io.flashstock.order.dashboard;

import io.flashstock.order.dashboard.Quantiles.Percentiles;

import java.util.List;
import java.util.Map;

/**
 * The engine between two samples, {@code seconds} apart: rates per second; latency percentiles of what was
 * observed in the last {@code latencySeconds}; each process's CPU (in cores) and memory. A null value is one no process reported.
 *
 * @param orders     per order series ({@link DashboardCharts#ORDERS}): the total since order-api started and the rate
 * @param latency    the order endpoints, arrival to answer ({@code flashstock.order.latency})
 * @param endToEnd   an order's event, from its creation to the commit that applied it in the stock database
 *                   ({@code flashstock.consumer.event.latency})
 * @param outboxBacklog outbox rows not sent yet, as outbox-relay last counted them ({@code flashstock.relay.backlog})
 * @param consumerLag   records of the stock topic stock-consumer's group has not committed, i.e. not applied yet
 */
record EngineView(double seconds, double latencySeconds, Map<String, Rate> orders, Percentiles latency, Percentiles endToEnd,
                  Stage relay, Stage consumer, List<ProcessView> processes, Double outboxBacklog, Double consumerLag) {

    record Rate(Double total, Double perSecond) {
    }

    /** A pipeline stage: rows or events per second, and the mean batch size in between. */
    record Stage(Double perSecond, Double batchSize, Double batchesPerSecond) {
    }

    record ProcessView(String name, Double cpuCores, Double memoryBytes, String problem) {
    }
}
