package io.flashstock.stock.admin;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Access to the {@code /admin/**} endpoints; the same setting as order-api's and outbox-relay's, so one token
 * serves all three.
 *
 * @param token the bearer token the admin endpoints require (env {@code STOCK_ADMIN_TOKEN}); empty turns the
 *              admin endpoints off (403)
 */
@ConfigurationProperties("flashstock.admin")
public record AdminSettings(String token) {

    public boolean enabled() {
        return token != null && !token.isBlank();
    }
}
