package io.flashstock.order.token;

import io.flashstock.order.placement.core.OrderAnswer;
import io.flashstock.order.placement.core.OrderMetrics;
import io.flashstock.order.placement.commit.OrderWrites;
import io.flashstock.order.placement.core.Outcome.Counted;
import io.flashstock.order.stock.StockReload;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;

import java.util.Optional;

/**
 * {@link RedeemToken}'s steps (3) and (4): the order of a hold gone to ordering is group-committed, fenced by the
 * hold's load epoch; then the hold is deleted, issued again, or left ordering for {@link TokenSettlement}.
 */
class TokenOrderWrite {

    // the redemption's own log category, as before this step had a class of its own
    private static final Logger log = LoggerFactory.getLogger(RedeemToken.class);

    private final TokenHolds holds;
    private final OrderWrites orders;
    private final StockReload reloads;
    private final OrderMetrics.Outcomes outcomes;

    TokenOrderWrite(TokenHolds holds, OrderWrites orders, StockReload reloads, OrderMetrics.Outcomes outcomes) {
        this.holds = holds;
        this.orders = orders;
        this.reloads = reloads;
        this.outcomes = outcomes;
    }

    OrderAnswer write(PurchaseToken token, TokenHolds.Redeem.Started started) {
        String item = token.itemCode();
        // the hold's user and quantity, which its take checked and counted, not the token's word for them
        var written = orders.write(token.id(), item, started.userId(), started.quantity(), started.generation(),
                started.loadEpoch(), started.remaining());
        if (written instanceof OrderWrites.Written.Committed committed) {
            release(token);
            outcomes.count(Counted.ACCEPTED);
            return committed.answer();
        }
        if (written instanceof OrderWrites.Written.Duplicate) {
            // its order was written by an earlier attempt whose hold Redis kept (a stale copy of Redis)
            release(token);
            return firstOrder(token).orElseThrow(() -> new IllegalStateException("order " + token.id()
                    + " is a duplicate and not in the database"));
        }
        if (written instanceof OrderWrites.Written.Unknown unknown) {
            // the hold stays ordering: TokenSettlement recounts the item after settle-after, which fences a late
            // commit out, and makes the token usable again if its order is not there
            outcomes.failed();
            throw (RuntimeException) unknown.cause();
        }
        retry(token, started.attempt());
        if (written instanceof OrderWrites.Written.Fenced) {
            // a rebuild since the hold went ordering counted it as a hold, not an order: it is the token's again
            reloads.heal(item);
            outcomes.count(Counted.STOCK_RELOADING);
            throw new RefusedException(Refusal.STOCK_RELOADING, "the stock of item " + item + " was rebuilt "
                    + "while the order was written; nothing was sold: retry shortly with the same token");
        }
        outcomes.failed();
        throw ((OrderWrites.Written.NotWritten) written).cause();
    }

    /** The token's order as the database holds it, if it was written. */
    Optional<OrderAnswer> firstOrder(PurchaseToken token) {
        try {
            return orders.find(token.id());
        } catch (DataAccessException e) {
            outcomes.failed();
            throw new RefusedException(Refusal.DATABASE_UNAVAILABLE, "could not look up the token's order", e);
        }
    }

    private void release(PurchaseToken token) {
        try {
            holds.written(token.itemCode(), token.id());
        } catch (RefusedException redisDown) {
            // the hold stays ordering; its settlement finds the order and deletes it (a rebuild before that does too)
            log.warn("order {} of item {} written, but its token's hold was not deleted ({}); it is settled later",
                    token.id(), token.itemCode(), redisDown.toString());
        }
    }

    private void retry(PurchaseToken token, String attempt) {
        try {
            holds.retry(token.itemCode(), token.id(), attempt);
        } catch (RefusedException redisDown) {
            log.warn("order {} of item {} not written, and its token's hold stays ordering ({}); it is settled later",
                    token.id(), token.itemCode(), redisDown.toString());
        }
    }
}
