package io.flashstock.order.placement;

import org.springframework.http.ResponseEntity;

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

    /** The answer to the order, once the body passed the input rules. */
    ResponseEntity<?> redeem(String bearerToken, String itemCode, String userId, int quantity);
}
