package io.flashstock.order.token;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import io.flashstock.order.placement.RefusalMemory;
import io.flashstock.order.placement.commit.OrderWrites;
import io.flashstock.order.placement.core.OrderMetrics;
import io.flashstock.order.placement.core.Outcome.Counted;
import io.flashstock.order.placement.core.Outcome.LimitReached;
import io.flashstock.order.placement.core.Outcome.SoldOut;
import io.flashstock.order.placement.core.Outcome.UnknownItem;
import io.flashstock.order.placement.core.Outcome.WrongGate;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.MissingCounters;
import io.flashstock.order.stock.StockReload;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Service;

import java.time.Duration;
import java.util.Optional;

/**
 * Issues a purchase token: the gate's take script takes the units and records the token's hold in one atomic step
 * (life, gate, stock and the per-user limit checked as for any order, the limit counting token units, and the item's
 * bound on holds outstanding), then the token is signed. A token whose answer is lost holds its units until it
 * expires; then they come back.
 */
@Service
class IssueToken {

    /** How an issue ended, short of a failure of Redis or the database (those throw). */
    sealed interface Outcome permits Issued, Refused {
    }

    /** The answer: the token and what it holds. */
    record Issued(String token, PurchaseToken claims) implements Outcome {
    }

    /**
     * Why no token was issued: one of an order's expected refusals ({@code SoldOut}, {@code LimitReached},
     * {@code WrongGate}, {@code UnknownItem}), in the order's terms, which {@link RefusalMemory} remembers and
     * {@code flashstock.orders} counts, and answered like an order's.
     */
    record Refused(io.flashstock.order.placement.core.Outcome refusal) implements Outcome {
    }

    /** UUIDv7, as order codes: the token's id is its order's code. */
    private final TimeBasedEpochGenerator uuids = Generators.timeBasedEpochGenerator();
    private final Optional<TokenCodec> codec;
    private final TokenHolds holds;
    private final MissingCounters missingCounters;
    private final StockReload reloads;
    private final OrderMetrics.Outcomes outcomes;
    private final RefusalMemory refusals;

    IssueToken(Optional<TokenCodec> tokenCodec, TokenHolds holds, MissingCounters missingCounters,
               StockReload reloads, OrderWrites orders, RefusalMemory refusals) {
        this.codec = tokenCodec;
        this.holds = holds;
        this.missingCounters = missingCounters;
        this.reloads = reloads;
        this.outcomes = orders.outcomes(Gate.TOKEN);
        this.refusals = refusals;
    }

    /** @return the token, or why there is none */
    Outcome issue(String itemCode, String userId, int quantity) {
        return issue(itemCode, userId, quantity, uuids.generate().toString());
    }

    /** The issue of the token {@code id}; package-private so that a test may send the same issue twice. */
    Outcome issue(String itemCode, String userId, int quantity, String id) {
        TokenCodec signer = codec.orElseThrow(RedeemToken::disabled);
        // the crowd after a sell-out is answered here, without a round trip to Redis
        Optional<Refused> standing = refusals.recall(itemCode, Gate.TOKEN, quantity).map(this::refused);
        if (standing.isPresent()) {
            return standing.get();
        }
        long heard = refusals.heard();
        Outcome outcome = issueThroughGate(signer, itemCode, userId, quantity, id);
        if (outcome instanceof Refused refused) {
            refusals.remember(itemCode, Gate.TOKEN, refused.refusal(), heard);
        }
        return outcome;
    }

    private Outcome issueThroughGate(TokenCodec signer, String itemCode, String userId, int quantity, String id) {
        TokenHolds.Issue issue;
        try {
            issue = holds.issue(itemCode, userId, quantity, id);
        } catch (RefusedException redisDown) {
            outcomes.failed();
            throw redisDown;
        }
        if (issue instanceof TokenHolds.Issue.Held held) {
            var claims = new PurchaseToken(id, itemCode, userId, quantity, held.generation(), held.expiresAt());
            return new Issued(signer.sign(claims), claims);
        }
        if (issue instanceof TokenHolds.Issue.SoldOut soldOut) {
            return refused(new SoldOut(soldOut.remaining()));
        }
        if (issue instanceof TokenHolds.Issue.LimitReached limit) {
            return refused(new LimitReached(limit.bought(), limit.limit()));
        }
        if (issue instanceof TokenHolds.Issue.WrongGate wrong) {
            return refused(new WrongGate(wrong.gate()));
        }
        if (issue instanceof TokenHolds.Issue.HoldsFull full) {
            // a refusal by design, counted as rejected with the endpoint's other thrown 4xx (OrderRejections)
            throw new RefusedException(Refusal.HOLDS_FULL, "item " + itemCode + " has " + full.maxHolds()
                    + " purchase tokens outstanding, its most; nothing was taken: retry after the seconds of "
                    + "Retry-After").with("itemCode", itemCode).with("maxHolds", full.maxHolds())
                    .retryAfter(Duration.ofMillis(full.waitMillis()));
        }
        if (issue instanceof TokenHolds.Issue.Untrusted) {
            reloads.heal(itemCode);
            throw rebuilding(itemCode);
        }
        // no counter: unknown item, one sold by its row, or a counter Redis lost (rebuilt)
        MissingCounters.Triage triage;
        try {
            triage = missingCounters.triage(itemCode, itemGate -> itemGate != Gate.DB_LOCK);
        } catch (DataAccessException e) {
            outcomes.failed();
            throw new RefusedException(Refusal.DATABASE_UNAVAILABLE, "could not look up the item", e);
        }
        if (triage instanceof MissingCounters.UnknownItem) {
            return refused(new UnknownItem());
        }
        if (triage instanceof MissingCounters.OtherGate other) {
            return refused(new WrongGate(other.gate()));
        }
        throw rebuilding(itemCode);
    }

    /** A refusal, counted as the order's would be (a recalled one as the gate's answer would have been). */
    private Refused refused(io.flashstock.order.placement.core.Outcome refusal) {
        outcomes.count(refusal.counted());
        return new Refused(refusal);
    }

    /** The refusal of an item whose counter is being rebuilt (its rebuild asked for already). */
    private RefusedException rebuilding(String itemCode) {
        outcomes.count(Counted.STOCK_RELOADING);
        return MissingCounters.rebuilding(itemCode, "no token was issued: retry shortly");
    }
}
