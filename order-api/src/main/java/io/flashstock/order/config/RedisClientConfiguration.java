package io.flashstock.order.config;

import io.lettuce.core.ClientOptions;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Lettuce's thread pools from {@link RedisClientSettings}, and fail-fast behaviour while Redis is away. */
@Configuration(proxyBeanMethods = false)
class RedisClientConfiguration {

    @Bean
    ClientResourcesBuilderCustomizer lettuceThreads(RedisClientSettings settings) {
        return builder -> {
            if (settings.ioThreads() > 0) {
                builder.ioThreadPoolSize(settings.ioThreads());
            }
            if (settings.computationThreads() > 0) {
                builder.computationThreadPoolSize(settings.computationThreads());
            }
        };
    }

    /**
     * While the connection is down, commands fail at once instead of queueing until their timeout: a
     * rejected command never ran, so the order is refused with a fast 503 and nothing needs giving back.
     */
    @Bean
    LettuceClientOptionsBuilderCustomizer rejectCommandsWhileDisconnected() {
        return builder -> builder.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
    }
}
