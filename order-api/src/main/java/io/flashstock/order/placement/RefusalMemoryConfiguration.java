package io.flashstock.order.placement;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The subscription that tells {@link RefusalMemory} of raised counters. On a Redis Cluster a PUBLISH reaches every
 * node, so one subscription on any of them hears every item: raises are rare (a give-back, an expiry sweep, a
 * load), so the broadcast costs nothing, where sharded channels would need one subscription per node, moved with
 * the slots.
 */
@Configuration(proxyBeanMethods = false)
class RefusalMemoryConfiguration {

    @Bean
    RedisMessageListenerContainer raisedCounters(RedisConnectionFactory redis, RefusalMemory memory) {
        var container = new RedisMessageListenerContainer();
        container.setConnectionFactory(redis);
        // forgetting an item is a map removal: done on the thread that read the message, not on a new one per message
        container.setTaskExecutor(Runnable::run);
        container.addMessageListener(memory, new ChannelTopic(RefusalMemory.CHANNEL));
        return container;
    }
}
