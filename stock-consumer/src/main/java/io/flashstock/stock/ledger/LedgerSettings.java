package io.flashstock.stock.ledger;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Limits on what the ledger applies.
 *
 * @param maxGenerationStep how far an event's generation may be ahead of the item's stored generation (or of 0 for an
 *                          item without a row). order-api raises an item's generation by one per reset and every reset
 *                          reaches the consumer, so a larger step is not order-api's; a reset that far ahead would
 *                          make every later real reset look stale and freeze the item, so it is refused and
 *                          dead-lettered instead
 */
@ConfigurationProperties("flashstock.ledger")
public record LedgerSettings(@DefaultValue("1000") long maxGenerationStep) {
}
