package io.flashstock.order.token;

import java.time.Instant;

/**
 * What a purchase token says: its id (which is also its order's code, so the database itself tells a token used
 * already), the item, user and quantity it holds units for, the stock generation they came from, and its expiry.
 */
record PurchaseToken(String id, String itemCode, String userId, int quantity, long generation, Instant expiresAt) {

    boolean matches(String itemCode, String userId, int quantity) {
        return this.itemCode.equals(itemCode) && this.userId.equals(userId) && this.quantity == quantity;
    }
}
