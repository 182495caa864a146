package io.flashstock.order.stock;

import io.flashstock.warmup.WarmupProperties;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

/**
 * Refuses to start when the warm-up's item code is a real item's (it has stock): the warm-up would sell from that
 * item's counter and its clean-up would remove the item's counter. Runs before the warm-up (an
 * {@link ApplicationRunner} too), and whether or not it is on, since the code stays reserved for it.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class WarmupItemGuard implements ApplicationRunner {

    private final StockItems items;
    private final String warmupItemCode;

    WarmupItemGuard(StockItems items, WarmupProperties warmup) {
        this.items = items;
        this.warmupItemCode = warmup.itemCode();
    }

    @Override
    public void run(ApplicationArguments args) {
        if (items.gate(warmupItemCode).isPresent()) {
            throw new IllegalStateException("flashstock.warmup.item-code '" + warmupItemCode + "' is a real item "
                    + "(it has stock): the warm-up would sell from it and its clean-up remove its counter; set "
                    + "flashstock.warmup.item-code to a code no item uses");
        }
    }
}
