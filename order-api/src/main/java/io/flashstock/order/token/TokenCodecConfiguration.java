package io.flashstock.order.token;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Clock;

@Configuration(proxyBeanMethods = false)
class TokenCodecConfiguration {

    /**
     * None without a key (null registers no usable bean, so {@code Optional<TokenCodec>} is empty): the token
     * endpoints then answer 503 TOKEN_GATE_DISABLED, nothing else changes.
     */
    @Bean
    TokenCodec tokenCodec(TokenSettings settings, Clock clock) {
        return settings.enabled() ? new TokenCodec(settings.keyBytes(), clock) : null;
    }
}
