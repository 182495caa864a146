package io.flashstock.order.stock;

import java.util.List;

/**
 * Units taken from an item's counter that are held for a later order and are in no order yet: the token gate's
 * tokens issued and unused ({@code io.flashstock.order.token}). A rebuild of the counter loads it without them (the
 * load step adds them up itself, atomically, see load-stock.lua), and the reconciliation names them.
 */
public interface HeldUnits {

    /**
     * The codes of the orders the database has among the item's holds: each such hold is that order now, counted
     * with the orders, so a rebuild must not count it again. Asked after the rebuild's fence, so that no hold not
     * named here can still become an order of the counter being replaced.
     */
    List<String> committedAmongHolds(String itemCode);

    /** The holds of the item's generation whose order the database does not have. */
    Outstanding outstanding(String itemCode, long generation);

    /** Holds and the units they hold. */
    record Outstanding(long count, long units) {
        public static final Outstanding NONE = new Outstanding(0, 0);
    }
}
