package io.flashstock.order.stock;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The Lua scripts under {@code resources/redis}, read once. A script made from a resource checks the
 * resource's last-modified time on every call, and inside the service's jar that check throws and catches
 * an exception per order; a script made from its text does not.
 */
public final class RedisScripts {

    private RedisScripts() {
    }

    public static <T> RedisScript<T> load(String name, Class<T> resultType) {
        return RedisScript.of(text(name), resultType);
    }

    /**
     * A script that calls {@code redis_life()}: {@code life.lua} goes before it, since a Lua script sent to Redis
     * cannot load another.
     */
    public static <T> RedisScript<T> loadWithLife(String name, Class<T> resultType) {
        return RedisScript.of(text("life.lua") + "\n" + text(name), resultType);
    }

    private static String text(String name) {
        try {
            return new ClassPathResource("redis/" + name).getContentAsString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the Lua script " + name, e);
        }
    }
}
