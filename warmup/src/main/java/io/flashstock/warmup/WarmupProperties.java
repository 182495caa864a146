package io.flashstock.warmup;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * JIT warm-up through the service's own order endpoint, run after the web server starts and before the
 * application reports ready.
 *
 * @param enabled whether to warm up at all
 * @param requests how many successful (200) orders to place before reporting ready
 * @param concurrency how many warm-up requests are in flight at once
 * @param requestTimeout how long one warm-up request may take
 * @param deadline how long the whole warm-up may take; readiness follows when it runs out, warmed or not
 * @param itemCode the dedicated item the warm-up orders; it has no baseline, is never published and is
 *                 cleaned up afterwards, so real items are never touched
 * @param path the order endpoint on this service
 * @param exitAfter end the process once the warm-up is done, for an AOT cache's training run: the cache then holds
 *                  the JIT profiles of the order path (JDK 25, JEP 515), not only the classes of start-up
 */
@ConfigurationProperties("flashstock.warmup")
public record WarmupProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("200") int requests,
        @DefaultValue("4") int concurrency,
        @DefaultValue("2s") Duration requestTimeout,
        @DefaultValue("20s") Duration deadline,
        @DefaultValue("warmup-jit") String itemCode,
        @DefaultValue("/order/stock/limit") String path,
        @DefaultValue("false") boolean exitAfter) {
}
