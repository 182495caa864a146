package io.flashstock.order.dashboard;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import java.util.Properties;

/** Redis's memory and CPU seconds from {@code INFO memory} and {@code INFO cpu}: two small commands. */
class RedisStats {

    private final StringRedisTemplate redis;

    RedisStats(StringRedisTemplate redis) {
        this.redis = redis;
    }

    Reading read() {
        try {
            Properties memory = info("memory");
            Properties cpu = info("cpu");
            double cpuSeconds = Double.parseDouble(cpu.getProperty("used_cpu_user", "0"))
                    + Double.parseDouble(cpu.getProperty("used_cpu_sys", "0"));
            return new Reading(Long.parseLong(memory.getProperty("used_memory", "0")), cpuSeconds, null);
        } catch (DataAccessException | NumberFormatException e) {
            return new Reading(null, null, "Redis did not answer INFO: " + e.getMessage());
        }
    }

    private Properties info(String section) {
        return redis.execute((RedisCallback<Properties>) (RedisConnection c) -> c.serverCommands().info(section));
    }

    /** Used memory in bytes and the CPU seconds Redis has used since it started; or why not. */
    record Reading(Long memoryBytes, Double cpuSeconds, String problem) {
    }
}
