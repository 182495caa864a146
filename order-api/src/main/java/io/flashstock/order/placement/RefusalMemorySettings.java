package io.flashstock.order.placement;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * What each order-api remembers of the refusals that stand for an item until its counter rises ({@link RefusalMemory}).
 *
 * @param ttl the longest a remembered refusal answers without asking Redis again, whatever was heard: the bound on
 *            a sale that a lost notice of units given back could delay (a subscription down while Redis restarts
 *            or fails over), and on a counter Redis lost or cannot vouch for being noticed and rebuilt. One order
 *            per item and order-api asks Redis in each such time
 * @param maxItems items remembered at most (the least used are forgotten first): unknown item codes cost memory
 */
@ConfigurationProperties("flashstock.order.refusal-memory")
public record RefusalMemorySettings(@DefaultValue("1s") Duration ttl, @DefaultValue("10000") int maxItems) {

    public RefusalMemorySettings {
        if (ttl.isNegative() || ttl.isZero() || maxItems < 1) {
            throw new IllegalArgumentException("flashstock.order.refusal-memory needs a positive ttl and max-items >= 1: "
                    + ttl + ", " + maxItems);
        }
    }
}
