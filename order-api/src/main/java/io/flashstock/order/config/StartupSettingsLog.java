package io.flashstock.order.config;

import com.zaxxer.hikari.HikariDataSource;
import io.flashstock.order.stock.StockSettings;
import io.flashstock.order.web.WebSettings;
import org.apache.coyote.AbstractProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.thread.Threading;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.stereotype.Component;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Logs one line at start-up with the tuning values actually in effect (read from Tomcat, Hikari and
 * Lettuce, not from the configuration), so a benchmark's log says what it measured.
 */
@Component
class StartupSettingsLog {

    private static final Logger log = LoggerFactory.getLogger(StartupSettingsLog.class);

    private final WebSettings web;
    private final StockSettings stock;
    private final DataSource dataSource;
    private final LettuceConnectionFactory redis;

    StartupSettingsLog(WebSettings web, StockSettings stock, DataSource dataSource, LettuceConnectionFactory redis) {
        this.web = web;
        this.stock = stock;
        this.dataSource = dataSource;
        this.redis = redis;
    }

    @EventListener
    void report(ApplicationReadyEvent event) {
        log.info("tuning: {}", describe(event.getApplicationContext()));
    }

    String describe(ApplicationContext context) {
        var line = new StringBuilder();
        line.append("jvm=").append(Runtime.version()).append(" (").append(System.getProperty("java.vm.name"))
                .append("), cpus=").append(Runtime.getRuntime().availableProcessors())
                .append(", maxHeap=").append(Runtime.getRuntime().maxMemory() >> 20).append("MB")
                .append(", virtualThreads=").append(Threading.VIRTUAL.isActive(context.getEnvironment()));
        appendTomcat(line, context);
        appendHikari(line);
        var resources = redis.getClientResources();
        line.append(", lettuce[ioThreads=").append(resources == null ? "?" : resources.ioThreadPoolSize())
                .append(", computationThreads=").append(resources == null ? "?" : resources.computationThreadPoolSize())
                .append(", timeout=").append(Duration.ofMillis(redis.getTimeout()))
                .append(", sharedConnection=").append(redis.getShareNativeConnection()).append(']');
        line.append(", order[maxQuantity=").append(web.maxQuantity())
                .append(", itemCodeMaxLength=").append(web.itemCodeMaxLength())
                .append(", maxBodySize=").append(web.maxBodySize())
                .append(", idempotencyTtl=").append(stock.idempotencyTtl())
                .append(", perUserTtl=").append(stock.perUserTtl())
                .append(", reload=").append(stock.reload()).append(']');
        return line.toString();
    }

    private static void appendTomcat(StringBuilder line, ApplicationContext context) {
        if (context instanceof WebServerApplicationContext web && web.getWebServer() instanceof TomcatWebServer tomcat
                && tomcat.getTomcat().getConnector().getProtocolHandler() instanceof AbstractProtocol<?> protocol) {
            line.append(", tomcat[executor=").append(protocol.getExecutor() == null ? "none"
                            : protocol.getExecutor().getClass().getSimpleName())
                    .append(", maxThreads=").append(protocol.getMaxThreads())
                    .append(", minSpareThreads=").append(protocol.getMinSpareThreads())
                    .append(", acceptCount=").append(protocol.getAcceptCount())
                    .append(", maxConnections=").append(protocol.getMaxConnections())
                    .append(", connectionTimeout=").append(protocol.getConnectionTimeout()).append("ms]");
        }
    }

    private void appendHikari(StringBuilder line) {
        try {
            if (dataSource.isWrapperFor(HikariDataSource.class)) {
                var hikari = dataSource.unwrap(HikariDataSource.class);
                line.append(", hikari[maximumPoolSize=").append(hikari.getMaximumPoolSize())
                        .append(", minimumIdle=").append(hikari.getMinimumIdle())
                        .append(", connectionTimeout=").append(hikari.getConnectionTimeout()).append("ms]");
            }
        } catch (SQLException e) {
            line.append(", hikari[unreadable: ").append(e.getMessage()).append(']');
        }
    }
}
