package io.flashstock.order.token;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import io.flashstock.order.placement.RefusalMemory;
import io.flashstock.order.placement.commit.OrderWrites;
import io.flashstock.order.placement.core.OrderMetrics;
import io.flashstock.order.placement.core.Outcome.Counted;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.MissingCounters;
import io.flashstock.order.stock.StockReload;
import io.flashstock.order.web.ProblemException;
import io.flashstock.order.web.ProblemType;
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

    /** Why no token was issued (the expected refusals, answered like an order's). */
    sealed interface Refused extends Outcome {
        record SoldOut(long remaining) implements Refused {
        }

        record LimitReached(long bought, long limit) implements Refused {
        }

        record WrongGate(Gate gate) implements Refused {
        }

        record UnknownItem() implements Refused {
        }
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
        Optional<Refused> standing = refusals.recall(itemCode, Gate.TOKEN, quantity).map(IssueToken::refused);
        if (standing.isPresent()) {
            outcomes.count(counted(standing.get()));
            return standing.get();
        }
        long heard = refusals.heard();
        Outcome outcome = issueThroughGate(signer, itemCode, userId, quantity, id);
        if (outcome instanceof Refused refused) {
            refusals.remember(itemCode, Gate.TOKEN, asOrder(refused), heard);
        }
        return outcome;
    }

    private Outcome issueThroughGate(TokenCodec signer, String itemCode, String userId, int quantity, String id) {
        TokenHolds.Issue issue;
        try {
            issue = holds.issue(itemCode, userId, quantity, id);
        } catch (ProblemException redisDown) {
            outcomes.failed();
            throw redisDown;
        }
        if (issue instanceof TokenHolds.Issue.Held held) {
            var claims = new PurchaseToken(id, itemCode, userId, quantity, held.generation(), held.expiresAt());
            return new Issued(signer.sign(claims), claims);
        }
        if (issue instanceof TokenHolds.Issue.SoldOut soldOut) {
            outcomes.count(Counted.SOLD_OUT);
            return new Refused.SoldOut(soldOut.remaining());
        }
        if (issue instanceof TokenHolds.Issue.LimitReached limit) {
            outcomes.count(Counted.LIMIT_REACHED);
            return new Refused.LimitReached(limit.bought(), limit.limit());
        }
        if (issue instanceof TokenHolds.Issue.WrongGate wrong) {
            outcomes.count(Counted.WRONG_GATE);
            return new Refused.WrongGate(wrong.gate());
        }
        if (issue instanceof TokenHolds.Issue.HoldsFull full) {
            // a refusal by design, counted as rejected with the endpoint's other thrown 4xx (OrderRejections)
            throw new ProblemException(ProblemType.HOLDS_FULL, "item " + itemCode + " has " + full.maxHolds()
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
            throw new ProblemException(ProblemType.DATABASE_UNAVAILABLE, "could not look up the item", e);
        }
        if (triage instanceof MissingCounters.UnknownItem) {
            outcomes.count(Counted.UNKNOWN_ITEM);
            return new Refused.UnknownItem();
        }
        if (triage instanceof MissingCounters.OtherGate other) {
            outcomes.count(Counted.WRONG_GATE);
            return new Refused.WrongGate(other.gate());
        }
        throw rebuilding(itemCode);
    }

    /** A refusal {@link RefusalMemory} recalled, as an issue's (it recalls no limit: that is the user's). */
    private static Refused refused(io.flashstock.order.placement.core.Outcome recalled) {
        if (recalled instanceof io.flashstock.order.placement.core.Outcome.SoldOut soldOut) {
            return new Refused.SoldOut(soldOut.remaining());
        }
        if (recalled instanceof io.flashstock.order.placement.core.Outcome.WrongGate wrongGate) {
            return new Refused.WrongGate(wrongGate.gate());
        }
        return new Refused.UnknownItem();
    }

    /** An issue's refusal as an order's, the terms {@link RefusalMemory} remembers in. */
    private static io.flashstock.order.placement.core.Outcome asOrder(Refused refused) {
        if (refused instanceof Refused.SoldOut soldOut) {
            return new io.flashstock.order.placement.core.Outcome.SoldOut(soldOut.remaining());
        }
        if (refused instanceof Refused.LimitReached limit) {
            return new io.flashstock.order.placement.core.Outcome.LimitReached(limit.bought(), limit.limit());
        }
        if (refused instanceof Refused.WrongGate wrongGate) {
            return new io.flashstock.order.placement.core.Outcome.WrongGate(wrongGate.gate());
        }
        return new io.flashstock.order.placement.core.Outcome.UnknownItem();
    }

    /** How a recalled refusal is counted: as the gate's answer would have been. */
    private static Counted counted(Refused refused) {
        if (refused instanceof Refused.SoldOut) {
            return Counted.SOLD_OUT;
        }
        return refused instanceof Refused.WrongGate ? Counted.WRONG_GATE : Counted.UNKNOWN_ITEM;
    }

    /** The refusal of an item whose counter is being rebuilt (its rebuild asked for already). */
    private ProblemException rebuilding(String itemCode) {
        outcomes.count(Counted.STOCK_RELOADING);
        return new ProblemException(ProblemType.STOCK_RELOADING, "the stock of item " + itemCode + " is being "
                + "rebuilt from the orders; no token was issued: retry shortly");
    }
}
