package io.flashstock.order.token;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Clock;

@Configuration(proxyBeanMethods = false)
class TokenCodecConfiguration {

    private static final Logger log = LoggerFactory.getLogger(TokenCodecConfiguration.class);

    /**
     * None without a key (null registers no usable bean, so {@code Optional<TokenCodec>} is empty): the token
     * endpoints then answer 503 TOKEN_GATE_DISABLED, nothing else changes.
     */
    @Bean
    TokenCodec tokenCodec(TokenSettings settings, Clock clock) {
        if (!settings.enabled()) {
            // said once at start-up, so an operator who meant to sell with tokens learns it before the sale
            log.info("token gate disabled: no signing key is configured (set FLASHSTOCK_TOKEN_KEY, base64, at least "
                    + "256 bits); the token endpoints answer 503 TOKEN_GATE_DISABLED");
            return null;
        }
        return new TokenCodec(settings.keyBytes(), clock);
    }
}
