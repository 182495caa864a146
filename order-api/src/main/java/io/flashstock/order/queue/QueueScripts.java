package io.flashstock.order.queue;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The waiting room's Lua scripts (resources/redis/queue), each sent with {@code queue/common.lua} before it.
 * The order's take and give-back wrap the Redis gate's own scripts in a function, so that the admission is used
 * (or restored) in the same atomic step as the stock is taken (or given back).
 */
final class QueueScripts {

    @SuppressWarnings("rawtypes")
    static final RedisScript<List> ENTER = RedisScript.of(queue("enter.lua"), List.class);
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> POLL = RedisScript.of(queue("poll.lua"), List.class);
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> ADMIT = RedisScript.of(queue("admit.lua"), List.class);
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> TAKE = RedisScript.of(text("life.lua") + "\n" + text("queue/common.lua")
            + wrapped("take_stock", "take-stock.lua") + text("queue/take.lua"), List.class);
    static final RedisScript<Long> GIVE_BACK = RedisScript.of(text("queue/common.lua")
            + wrapped("give_back", "give-back.lua") + text("queue/give-back.lua"), Long.class);

    private QueueScripts() {
    }

    private static String queue(String name) {
        return text("queue/common.lua") + "\n" + text("queue/" + name);
    }

    private static String wrapped(String function, String name) {
        return "\nlocal function " + function + "()\n" + text(name) + "\nend\n";
    }

    private static String text(String name) {
        try {
            return new ClassPathResource("redis/" + name).getContentAsString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the Lua script " + name, e);
        }
    }
}
