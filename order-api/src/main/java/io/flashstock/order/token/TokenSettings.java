package io.flashstock.order.token;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;
import java.util.Base64;

/**
 * The token gate: purchase tokens signed with HS256 under one shared key, since the service that issues a token
 * is the one that verifies it (any instance of it).
 *
 * @param key the signing key, base64, at least 256 bits (env {@code FLASHSTOCK_TOKEN_KEY}); empty turns the token
 *            endpoints off (503 {@code TOKEN_GATE_DISABLED}), the rest of the engine works without it.
 *            {@code scripts/stack} sets a development key; docker-compose.yml none (a published key would let
 *            anyone sign tokens)
 * @param ttl how long a token may be used; its units come back after it (and the grace) if it was not
 * @param grace how long after a token's expiry its hold still waits for a redemption verified just before it:
 *              Redis's clock decides, so a token the service verified as unexpired is decided by one atomic step,
 *              never by two clocks
 * @param sweepEvery how often the units of expired tokens are given back (each exactly once, whatever the number
 *                   of instances sweeping)
 * @param settleAfter how long an attempt may take to write a token's order before it counts as abandoned (its
 *                    order-api died, or the commit's outcome stayed unknown): the item is then recounted, which
 *                    fences out a late write, and the token is usable again (or its units come back)
 * @param maxHolds the most holds outstanding per item (issued, not yet an order nor given back): an issue past it is
 *                 refused, 429 {@code HOLDS_FULL}. Holds never outnumber the units, so this bounds what tokens under
 *                 throwaway user ids keep out of sale at once on a large item; 10,000 is ten seconds of tokens at the
 *                 ~1,000 orders a second one order-api sells, each redeemed within a second or two by a real user
 */
@ConfigurationProperties("flashstock.token")
public record TokenSettings(@DefaultValue("") String key, @DefaultValue("60s") Duration ttl,
                            @DefaultValue("5s") Duration grace, @DefaultValue("1s") Duration sweepEvery,
                            @DefaultValue("30s") Duration settleAfter, @DefaultValue("10000") long maxHolds) {

    /** HS256 needs a key at least as long as its hash. */
    static final int MIN_KEY_BYTES = 32;

    public TokenSettings {
        if (key != null && !key.isBlank()) {
            byte[] bytes;
            try {
                bytes = Base64.getDecoder().decode(key.trim());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("flashstock.token.key must be base64", e);
            }
            if (bytes.length < MIN_KEY_BYTES) {
                throw new IllegalArgumentException("flashstock.token.key must be at least 256 bits (32 bytes), it has "
                        + bytes.length + " bytes");
            }
        }
        if (ttl.toMillis() < 1000 || grace.isNegative() || sweepEvery.toMillis() < 1 || settleAfter.toMillis() < 1
                || maxHolds < 1) {
            throw new IllegalArgumentException("flashstock.token needs ttl >= 1s, grace >= 0, sweep-every and "
                    + "settle-after > 0, max-holds >= 1");
        }
    }

    boolean enabled() {
        return key != null && !key.isBlank();
    }

    byte[] keyBytes() {
        return Base64.getDecoder().decode(key.trim());
    }
}
