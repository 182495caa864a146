package io.flashstock.admin;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Access to the {@code /admin/**} endpoints; one setting for every service, so one token serves all of them.
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
