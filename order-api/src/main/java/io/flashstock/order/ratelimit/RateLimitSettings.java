package io.flashstock.order.ratelimit;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The rate limit per client address on the two requests that store something for a user id (waiting-room entries,
 * token issues): a token bucket per address and endpoint in Redis, shared by every order-api. The address is the
 * request's remote address: the TCP peer, or the client a trusted proxy names in {@code X-Forwarded-For} when
 * {@code server.forward-headers-strategy} says there is one (docs/reliability.md); an IPv6 client counts by its /64.
 *
 * @param enabled off only where every client is one address on purpose (the local stack's load tools)
 * @param burst the requests one address may send at once: a household's or an office's users at a drop's opening
 * @param perMinute the requests it may send after that, refilled evenly: 120 is two a second, so that an address
 *                  takes at most 7,200 places an hour (a few per cent of a waiting room's {@code max-waiting})
 */
@ConfigurationProperties("flashstock.rate-limit")
public record RateLimitSettings(@DefaultValue("true") boolean enabled, @DefaultValue("20") long burst,
                                @DefaultValue("120") long perMinute) {

    public RateLimitSettings {
        if (burst < 1 || perMinute < 1) {
            throw new IllegalArgumentException("flashstock.rate-limit needs burst and per-minute >= 1: " + burst
                    + ", " + perMinute);
        }
    }
}
