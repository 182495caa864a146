package io.flashstock.relay;

import io.flashstock.contract.StockTopics;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How the relay claims, publishes, retries and cleans up outbox rows.
 *
 * @param topic the Kafka topic the events go to
 * @param batchSize how many rows one claim takes; a full batch makes the relay claim again at once
 * @param idleInterval how long the relay waits after a short or empty batch before it claims again
 * @param lease how long a claim stays with this instance; afterwards another instance may take the rows
 *              again (a crashed relay's rows are retried after this). Must exceed the producer's
 *              {@code max.block.ms} + {@code delivery.timeout.ms}, so a slow send is never re-claimed in flight
 * @param maxAttempts failed sends of a row's own (the broker or the producer refused the record: too large, not
 *                    authorised, ...) after which it becomes DEAD instead of being retried; sends that failed
 *                    because the broker was unreachable or slow, and claims whose lease ran out, do not count
 * @param backoff the wait before a failed row is claimed again
 * @param instanceId written to {@code claimed_by}; empty means host name, process id and a random suffix
 * @param retention how long SENT rows are kept before they are deleted
 * @param retentionBatchSize how many SENT rows one delete statement removes at most
 * @param retentionInterval how often expired SENT rows are looked for
 * @param backlogSampleInterval how often the backlog, oldest unsent age and DEAD count gauges are queried
 * @param stallTimeout how long one cycle of the relay loop (claim, publish, mark) may run before the loop counts
 *                     as stuck and the liveness probe fails, so the process gets restarted; pauses between
 *                     cycles do not count. Must exceed the producer's {@code max.block.ms} +
 *                     {@code delivery.timeout.ms} plus a few statements, each bounded by the driver's socket timeout
 */
@ConfigurationProperties("flashstock.relay")
public record RelaySettings(
        @DefaultValue(StockTopics.EVENTS) String topic,
        @DefaultValue("500") int batchSize,
        @DefaultValue("100ms") Duration idleInterval,
        @DefaultValue("30s") Duration lease,
        @DefaultValue("20") int maxAttempts,
        @DefaultValue Backoff backoff,
        @DefaultValue("") String instanceId,
        @DefaultValue("1d") Duration retention,
        @DefaultValue("1000") int retentionBatchSize,
        @DefaultValue("1m") Duration retentionInterval,
        @DefaultValue("5s") Duration backlogSampleInterval,
        @DefaultValue("3m") Duration stallTimeout) {

    /** {@code claimed_by} is a VARCHAR(64). */
    private static final int INSTANCE_ID_MAX_LENGTH = 64;
    private static final int RANDOM_SUFFIX_BYTES = 3;

    public RelaySettings {
        requirePositive("batch-size", batchSize);
        requirePositive("max-attempts", maxAttempts);
        requirePositive("retention-batch-size", retentionBatchSize);
        requirePositive("lease", lease);
        requirePositive("retention", retention);
        requirePositive("retention-interval", retentionInterval);
        requirePositive("backlog-sample-interval", backlogSampleInterval);
        requirePositive("stall-timeout", stallTimeout);
        if (idleInterval.isNegative()) {
            throw new IllegalArgumentException("flashstock.relay.idle-interval must not be negative");
        }
        instanceId = instanceId == null || instanceId.isBlank() ? defaultInstanceId() : instanceId;
        if (instanceId.length() > INSTANCE_ID_MAX_LENGTH) {
            throw new IllegalArgumentException("flashstock.relay.instance-id is longer than "
                    + INSTANCE_ID_MAX_LENGTH + " characters: " + instanceId);
        }
    }

    /**
     * Exponential backoff: the n-th failed claim of a row waits {@code initial × multiplier^(n-1)}, at most
     * {@code max}.
     *
     * @param initial the wait after the first failure
     * @param max the longest wait
     * @param multiplier the growth per further failure
     */
    public record Backoff(
            @DefaultValue("500ms") Duration initial,
            @DefaultValue("60s") Duration max,
            @DefaultValue("2.0") double multiplier) {

        public Backoff {
            requirePositive("backoff.initial", initial);
            if (max.compareTo(initial) < 0) {
                throw new IllegalArgumentException("flashstock.relay.backoff.max must not be below backoff.initial");
            }
            if (multiplier < 1) {
                throw new IllegalArgumentException("flashstock.relay.backoff.multiplier must be at least 1");
            }
        }

        /** The wait after a row's {@code attempts}-th claim failed (attempts counted from 1). */
        public Duration after(int attempts) {
            double millis = initial.toMillis() * Math.pow(multiplier, Math.max(0, attempts - 1));
            return millis >= max.toMillis() ? max : Duration.ofMillis((long) millis);
        }
    }

    private static void requirePositive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException("flashstock.relay." + name + " must be positive: " + value);
        }
    }

    private static void requirePositive(String name, Duration value) {
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException("flashstock.relay." + name + " must be positive: " + value);
        }
    }

    private static String defaultInstanceId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "unknown-host";
        }
        byte[] random = new byte[RANDOM_SUFFIX_BYTES];
        ThreadLocalRandom.current().nextBytes(random);
        String suffix = "-" + ManagementFactory.getRuntimeMXBean().getPid() + "-" + HexFormat.of().formatHex(random);
        int hostRoom = INSTANCE_ID_MAX_LENGTH - suffix.length();
        return (host.length() > hostRoom ? host.substring(0, hostRoom) : host) + suffix;
    }
}
