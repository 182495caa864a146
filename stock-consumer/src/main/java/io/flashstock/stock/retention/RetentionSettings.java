package io.flashstock.stock.retention;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * Clean-up of the dedupe table.
 *
 * @param processedEvents how long {@code processed_event} rows are kept, the dedupe window. It must outlast every
 *                        record Kafka can still deliver, or a rewound offset would apply a record twice: the service
 *                        refuses to start when the topic's settings allow a longer redelivery (see
 *                        {@code DedupeWindowCheck}). 15 days cover Kafka's defaults (7 days of retention.ms, plus
 *                        7 days of segment.ms, plus an hour of future timestamps, plus the 5-minute retention check);
 *                        events older than it are dead-lettered
 * @param deleteBatchSize rows deleted per statement, so the clean-up never holds many locks at once
 * @param interval        time between two clean-ups (the first runs at start-up)
 */
@ConfigurationProperties("flashstock.retention")
public record RetentionSettings(@DefaultValue("15d") Duration processedEvents,
                                @DefaultValue("5000") int deleteBatchSize,
                                @DefaultValue("1h") Duration interval) {
}
