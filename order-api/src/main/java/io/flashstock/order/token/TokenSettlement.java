package io.flashstock.order.token;

import io.flashstock.order.stock.StockReload;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import java.util.Map;

/**
 * Settles holds left ordering by an attempt that outlived {@code flashstock.token.settle-after} (its order-api
 * died, or its commit's outcome stayed unknown). The item is recounted ({@link StockReload#recountNow}): its fence
 * waits for that attempt's transaction if it is still committing and refuses it if it comes later, and its load
 * deletes the holds whose order the database has and counts the others as held. Then each hold still ordering under
 * the same attempt is issued again: usable until its expiry, and given back after it like any other.
 */
@Component
class TokenSettlement {

    private static final Logger log = LoggerFactory.getLogger(TokenSettlement.class);

    private final StockReload reloads;
    private final TokenHolds holds;

    TokenSettlement(StockReload reloads, TokenHolds holds) {
        this.reloads = reloads;
        this.holds = holds;
    }

    /**
     * @param abandoned token id → the attempt that was seen ordering it
     * @return whether the item was recounted and the holds settled; false while another rebuild holds the item
     */
    boolean settle(String itemCode, Map<String, String> abandoned) {
        if (!reloads.recountNow(itemCode)) {
            return false;
        }
        abandoned.forEach((id, attempt) -> {
            boolean reissued = holds.retry(itemCode, id, attempt);
            log.info("token {} of item {}: its attempt of {} was abandoned; item recounted, {}", id, itemCode,
                    attempt, reissued ? "token usable again" : "its order was written");
        });
        return true;
    }
}
