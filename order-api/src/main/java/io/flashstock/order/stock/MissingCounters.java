package io.flashstock.order.stock;

import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.refusal.RefusedException;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

import java.util.Optional;
import java.util.function.Predicate;

/**
 * The one triage of an item whose counter a gate did not find in Redis, the same for orders, tokens and waiting
 * rooms: no such item; an item of a gate that sells it otherwise (the DB-lock gate keeps no counter in Redis); or a
 * counter Redis lost, which is then rebuilt from the orders ({@link StockReload#heal}) while the request is refused.
 */
@Component
public class MissingCounters {

    /** What a missing counter means. */
    public sealed interface Triage {
    }

    /** No stock is set for the item. */
    public record UnknownItem() implements Triage {
    }

    /** The item is sold through {@code gate}, which the asking gate cannot sell it for. */
    public record OtherGate(Gate gate) implements Triage {
    }

    /** Redis lost the counter; its rebuild has been asked for. */
    public record Rebuilding() implements Triage {
    }

    private final StockItems items;
    private final StockReload reloads;

    public MissingCounters(StockItems items, StockReload reloads) {
        this.items = items;
        this.reloads = reloads;
    }

    /**
     * @param sellsHere whether the asking gate sells an item of that gate from its Redis counter
     * @throws DataAccessException when the database cannot say what the item is
     */
    public Triage triage(String itemCode, Predicate<Gate> sellsHere) {
        Optional<Gate> gate = items.gate(itemCode);
        if (gate.isEmpty()) {
            return new UnknownItem();
        }
        if (!sellsHere.test(gate.get())) {
            return new OtherGate(gate.get());
        }
        reloads.heal(itemCode);
        return new Rebuilding();
    }

    /**
     * The refusal of a request for an item whose counter is being rebuilt (its rebuild asked for already), in the
     * same words at every gate that throws it; {@code retry} says what the request did not do and how to retry.
     */
    public static RefusedException rebuilding(String itemCode, String retry) {
        return new RefusedException(Refusal.STOCK_RELOADING, "the stock of item " + itemCode
                + " is being rebuilt from the orders; " + retry);
    }
}
