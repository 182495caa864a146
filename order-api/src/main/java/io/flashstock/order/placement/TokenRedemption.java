package io.flashstock.order.placement;

import io.flashstock.order.placement.core.OrderAnswer;
import org.springframework.beans.factory.ObjectProvider;

import java.util.Optional;

/**
 * An order placed with a purchase token ({@code Authorization: Bearer …} on {@link OrderController#PATH}): the
 * token gate ({@code io.flashstock.order.token}) answers it, since the token holds its units already.
 */
public interface TokenRedemption {

    /**
     * Whether this order-api sells through purchase tokens (a signing key is configured); without one, an
     * {@code Authorization} header on an order is no purchase token and the order is placed as any other.
     */
    boolean enabled();

    /**
     * The token gate, if an order's {@code Authorization} header carries a purchase token for it: a Bearer
     * credential, where the gate is enabled. The controller routes by it and the rejection count names the gate
     * by it, so the two cannot disagree.
     */
    static Optional<TokenRedemption> of(String authorization, ObjectProvider<TokenRedemption> tokens) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.empty();
        }
        return Optional.ofNullable(tokens.getIfAvailable()).filter(TokenRedemption::enabled);
    }

    /** The order the token is for, written now or before (a token used again); refusals are thrown. */
    OrderAnswer redeem(String bearerToken, String itemCode, String userId, int quantity);
}
