package io.flashstock.order.token;

import io.flashstock.order.placement.TokenRedemption;
import io.flashstock.order.placement.commit.OrderWrites;
import io.flashstock.order.placement.core.OrderAnswer;
import io.flashstock.order.placement.core.OrderMetrics;
import io.flashstock.order.placement.core.Outcome.Counted;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.MissingCounters;
import io.flashstock.order.stock.StockReload;
import org.springframework.stereotype.Service;

import java.util.Map;
import java.util.Optional;

/**
 * Places the order a purchase token is for. (1) The token is verified (signature, expiry, and that the body is
 * the order it is for); (2) one atomic step moves its hold from issued to ordering and reads the counter's load
 * epoch, so one attempt at a time writes its order, and only if the token's user and quantity are the hold's (a
 * token re-signed by whoever has the key is refused 403 TOKEN_MISMATCH, nothing changed); (3) the order and its
 * outbox row, for the hold's user and quantity, are group-committed, fenced by that epoch, under the token's id as
 * order code; (4) written, the hold is deleted (its units are the order's);
 * not written or fenced, the hold is issued again (its units stay held, a rebuild counted them as held); outcome
 * unknown, the hold stays ordering until {@link TokenSettlement} settles it. A token used again finds no hold and
 * its order in the database, which answers it: the first order, never a second. Steps (3) and (4):
 * {@link TokenOrderWrite}.
 */
@Service
class RedeemToken implements TokenRedemption {

    private static final String BEARER = "Bearer ";

    private final Optional<TokenCodec> codec;
    private final TokenHolds holds;
    private final TokenOrderWrite writing;
    private final TokenSettlement settlement;
    private final StockReload reloads;
    private final OrderMetrics.Outcomes outcomes;
    private final long settleAfterMillis;

    RedeemToken(Optional<TokenCodec> tokenCodec, TokenHolds holds, OrderWrites orders, TokenSettlement settlement,
                StockReload reloads, TokenSettings settings) {
        this.codec = tokenCodec;
        this.holds = holds;
        this.settlement = settlement;
        this.reloads = reloads;
        this.outcomes = orders.outcomes(Gate.TOKEN);
        this.writing = new TokenOrderWrite(holds, orders, reloads, outcomes);
        this.settleAfterMillis = settings.settleAfter().toMillis();
    }

    static RefusedException disabled() {
        return new RefusedException(Refusal.TOKEN_GATE_DISABLED, "no token signing key is configured (set "
                + "FLASHSTOCK_TOKEN_KEY); orders without a token are not affected");
    }

    @Override
    public boolean enabled() {
        return codec.isPresent();
    }

    @Override
    public OrderAnswer redeem(String authorization, String itemCode, String userId, int quantity) {
        TokenCodec verifier = codec.orElseThrow(RedeemToken::disabled);
        PurchaseToken token = verified(verifier, authorization);
        if (!token.matches(itemCode, userId, quantity)) {
            throw new RefusedException(Refusal.TOKEN_MISMATCH, "the token is for " + token.quantity()
                    + " of item " + token.itemCode() + " by its user, not for this order").with("itemCode", itemCode);
        }
        return redeem(token, true);
    }

    private PurchaseToken verified(TokenCodec verifier, String authorization) {
        if (!authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            throw new RefusedException(Refusal.TOKEN_INVALID, "send the purchase token as Authorization: Bearer "
                    + "<token>");
        }
        try {
            return verifier.verify(authorization.substring(BEARER.length()).trim());
        } catch (TokenCodec.Refused refused) {
            throw new RefusedException(refused.refusal() == TokenCodec.Refusal.EXPIRED ? Refusal.TOKEN_EXPIRED
                    : Refusal.TOKEN_INVALID, refused.getMessage());
        }
    }

    private OrderAnswer redeem(PurchaseToken token, boolean maySettle) {
        String item = token.itemCode();
        TokenHolds.Redeem step;
        try {
            step = holds.startOrdering(token);
        } catch (RefusedException redisDown) {
            outcomes.failed();
            throw redisDown;
        }
        if (step instanceof TokenHolds.Redeem.Started started) {
            return writing.write(token, started);
        }
        if (step instanceof TokenHolds.Redeem.Absent absent) {
            var first = writing.firstOrder(token);
            if (first.isEmpty() && absent.generation().isEmpty()) {
                // Redis lost the item's keys (a restart without persistence): its holds with them, so the rebuild
                // gives their units back to the stock; the token is answered once it is done
                throw rebuilding(item);
            }
            return first.orElseThrow(() -> gone(token, absent.generation()));
        }
        if (step instanceof TokenHolds.Redeem.Ordering ordering) {
            if (maySettle && ordering.nowMillis() - ordering.attemptMillis() > settleAfterMillis
                    && settlement.settle(item, Map.of(token.id(), ordering.attempt()))) {
                return redeem(token, false);
            }
            throw new RefusedException(Refusal.TOKEN_IN_USE, "an order with this token is being written; retry "
                    + "shortly, the same token tells how it ended").with("orderCode", token.id());
        }
        if (step instanceof TokenHolds.Redeem.Mismatch) {
            throw new RefusedException(Refusal.TOKEN_MISMATCH, "the token's user or quantity is not what its hold "
                    + "reserved; nothing was sold").with("itemCode", item);
        }
        if (step instanceof TokenHolds.Redeem.Expired) {
            throw new RefusedException(Refusal.TOKEN_EXPIRED, "the token expired; its units come back to the "
                    + "stock");
        }
        if (step instanceof TokenHolds.Redeem.Void) {
            throw voided(token);
        }
        throw rebuilding(item);
    }

    private RefusedException rebuilding(String item) {
        reloads.heal(item);
        outcomes.count(Counted.STOCK_RELOADING);
        return MissingCounters.rebuilding(item, "nothing was sold: retry shortly with the same token");
    }

    private RefusedException gone(PurchaseToken token, String generation) {
        if (!generation.equals(Long.toString(token.generation()))) {
            return voided(token);
        }
        return new RefusedException(Refusal.TOKEN_RELEASED, "the token was not used before it expired; its units "
                + "came back to the stock").with("itemCode", token.itemCode());
    }

    private static RefusedException voided(PurchaseToken token) {
        return new RefusedException(Refusal.TOKEN_VOID, "the stock of item " + token.itemCode() + " was reset "
                + "since the token was issued (generation " + token.generation() + ")")
                .with("itemCode", token.itemCode());
    }
}
