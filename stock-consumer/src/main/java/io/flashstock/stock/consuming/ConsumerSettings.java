package io.flashstock.stock.consuming;

import io.flashstock.contract.StockTopics;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * What the consumer reads and how it retries. Kafka's own knobs (group id, concurrency, max.poll.records) are
 * Spring Boot's {@code spring.kafka.*} settings.
 *
 * @param topic        the topic of stock events; records that cannot be applied go to {@code <topic>-dlt}
 * @param retry        back-off of a batch that failed
 * @param maxClockSkew how far ahead of this service's clock an event's occurredAt may be before it is counted
 *                     ({@code flashstock.consumer.events.clock.ahead}) and logged as a warning. Such an event is
 *                     applied all the same: it stands for an order order-api committed and answered, and only its
 *                     time is off. Its dedupe row is kept until occurredAt + the dedupe window
 * @param stuckAfter   a batch still running after this long makes liveness DOWN (health component
 *                     {@code batchProgress}), so that a listener hung on something without a timeout is restarted;
 *                     keep it well above the longest healthy batch (lock waits, statements up to the socket timeout)
 * @param staticMembership the listener's consumers join the group as static members (Kafka's
 *                     {@code group.instance.id}): a process killed and started again with the same instance id takes
 *                     its partitions back at once, instead of waiting until the broker drops the killed members
 *                     (the session timeout) and the group rebalances. Off: dynamic members, whose member ids do not
 *                     survive a restart
 * @param instanceId   the static members' instance id; each listener thread appends {@code -0}, {@code -1}, ….
 *                     It must stay the same across restarts of one instance and differ between instances that run
 *                     at the same time: a second process with the same id fences the first, whose listener stops.
 *                     Letters, digits, '.', '_' and '-'. Unset: {@code stock-consumer-<host name>-<server.port>},
 *                     unique as long as host names are; with a random port ({@code server.port=0}) dynamic members
 */
@ConfigurationProperties("flashstock.consumer")
public record ConsumerSettings(@DefaultValue(StockTopics.EVENTS) String topic,
                               @DefaultValue Retry retry,
                               @DefaultValue("5m") Duration maxClockSkew,
                               @DefaultValue("2m") Duration stuckAfter,
                               @DefaultValue("true") boolean staticMembership,
                               String instanceId) {

    public ConsumerSettings {
        if (instanceId != null && !GroupMembership.isValidInstanceId(instanceId)) {
            throw new IllegalArgumentException("flashstock.consumer.instance-id '" + instanceId
                    + "' must be 1 to " + GroupMembership.MAX_INSTANCE_ID + " letters, digits, '.', '_' or '-'");
        }
    }

    /**
     * @param initialInterval      wait before the first retry of a failed batch
     * @param multiplier           factor applied to the wait after each failed retry
     * @param maxInterval          longest wait between two retries; a batch that failed for a transient reason
     *                             (database or Redis down, lock wait ran out, dead-letter topic unreachable) is
     *                             retried without limit, never dead-lettered
     * @param refusedRecordAttempts attempts of a record that the database or the ledger refuses (a data or
     *                             constraint error, a generation too far ahead), {@code initialInterval} apart,
     *                             before it goes to the dead-letter topic and its partition moves on
     */
    public record Retry(@DefaultValue("500ms") Duration initialInterval,
                        @DefaultValue("2") double multiplier,
                        @DefaultValue("30s") Duration maxInterval,
                        @DefaultValue("3") int refusedRecordAttempts) {
    }
}
