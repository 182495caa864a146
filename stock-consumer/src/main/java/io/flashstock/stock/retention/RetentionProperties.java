package io.flashstock.stock.retention;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * Clean-up of the dedupe table.
 *
 * @param processedEvents how long {@code processed_event} rows are kept; must exceed the topic's retention plus
 *                        the longest lag the consumer may have, or a very late redelivery would apply twice
 * @param deleteBatchSize rows deleted per statement, so the clean-up never holds many locks at once
 * @param interval        time between two clean-ups (the first runs at start-up)
 */
@ConfigurationProperties("flashstock.retention")
public record RetentionProperties(@DefaultValue("7d") Duration processedEvents,
                                  @DefaultValue("5000") int deleteBatchSize,
                                  @DefaultValue("1h") Duration interval) {
}
