package io.flashstock.order.token;

import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.stock.Gate;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The Redis side of the token gate: the units a token holds, each change one atomic Lua step. A hold is issued
 * (by the gate's own take script, so the checks of life, gate, stock and per-user limit are the gate's), goes to
 * ordering while one attempt writes its order, and ends either as that order (deleted once it is written) or
 * given back at its expiry (deleted in the same step). Keys: {@link TokenKeys}.
 * <p>
 * What the use cases see; each step is a class of its own: {@link HoldIssuing}, {@link HoldOrdering} (to ordering,
 * then written or issued again) and {@link HoldExpiry}.
 */
@Component
class TokenHolds {

    /** Holds looked at per sweep step, so one step never blocks Redis long. */
    static final int SWEEP_BATCH = 500;

    /** The take's answer to an issue. */
    sealed interface Issue {
        record Held(long remaining, long generation, Instant expiresAt) implements Issue {
        }

        record SoldOut(long remaining) implements Issue {
        }

        record LimitReached(long bought, long limit) implements Issue {
        }

        record WrongGate(Gate gate) implements Issue {
        }

        /** The item has {@code maxHolds} holds outstanding; the first of them expires in {@code waitMillis}. */
        record HoldsFull(long maxHolds, long waitMillis) implements Issue {
        }

        /** No counter: the item is unknown, sold by its row, or Redis lost it. */
        record Unknown() implements Issue {
        }

        /** The counter must be rebuilt before anything is sold from it. */
        record Untrusted() implements Issue {
        }
    }

    /** The redemption step's answer. */
    sealed interface Redeem {
        /**
         * This attempt may write the order under {@code loadEpoch}; {@code attempt} ends it. The order is the
         * hold's: its {@code userId} and {@code quantity}.
         */
        record Started(long loadEpoch, long generation, long remaining, String attempt, String userId, int quantity)
                implements Redeem {
        }

        /** The token's user or quantity is not its hold's: nothing changed. */
        record Mismatch() implements Redeem {
        }

        record Absent(String generation) implements Redeem {
        }

        record Ordering(String attempt, long attemptMillis, long nowMillis) implements Redeem {
        }

        record Expired() implements Redeem {
        }

        record Void() implements Redeem {
        }

        record Untrusted() implements Redeem {
        }
    }

    /** One sweep step: holds given back (and their units), holds looked at, attempts that outlived their deadline. */
    record Sweep(long given, long units, int lookedAt, Map<String, String> abandoned) {
    }

    private final StringRedisTemplate redis;
    private final HoldIssuing issuing;
    private final HoldOrdering ordering;
    private final HoldExpiry expiry;

    TokenHolds(StringRedisTemplate redis, HoldIssuing issuing, HoldOrdering ordering, HoldExpiry expiry) {
        this.redis = redis;
        this.issuing = issuing;
        this.ordering = ordering;
        this.expiry = expiry;
    }

    /**
     * Takes the units for a token through the gate's take script, which records the hold in the same step. Not
     * sent again after a timed-out reply: the hold, if it was made, comes back at its expiry. The same issue sent
     * again (by Lettuce, after a reconnect) is answered from the take's record and the hold it made: the same
     * token, for the units already held.
     */
    Issue issue(String itemCode, String userId, int quantity, String tokenId) {
        return issuing.issue(itemCode, userId, quantity, tokenId);
    }

    /**
     * Moves the token's hold from issued to ordering, if it is still the token's and holds what the token says (its
     * user, its quantity; the item is the hold's key).
     */
    Redeem startOrdering(PurchaseToken token) {
        return ordering.startOrdering(token);
    }

    /** The token's order is in the database: its hold is gone, its units are the order's. */
    void written(String itemCode, String tokenId) {
        ordering.written(itemCode, tokenId);
    }

    /**
     * The attempt did not write the order: the hold is issued again (its units stay held), unless another attempt
     * took it over or it is gone.
     *
     * @return whether the hold was issued again
     */
    boolean retry(String itemCode, String tokenId, String attempt) {
        return ordering.retry(itemCode, tokenId, attempt);
    }

    /** Gives back the units of up to {@link #SWEEP_BATCH} holds past their expiry, and names abandoned attempts. */
    Sweep expire(String itemCode) {
        return expiry.expire(itemCode);
    }

    /** Every hold of the item: token id → its hold. */
    Map<Object, Object> all(String itemCode) {
        return redis(() -> redis.opsForHash().entries(TokenKeys.holds(itemCode)));
    }

    static long number(List<?> reply, int index) {
        return Long.parseLong((String) reply.get(index));
    }

    static <T> T redis(Supplier<T> call) {
        try {
            return call.get();
        } catch (DataAccessException e) {
            throw new RefusedException(Refusal.REDIS_UNAVAILABLE, "Redis did not answer", e);
        }
    }
}
