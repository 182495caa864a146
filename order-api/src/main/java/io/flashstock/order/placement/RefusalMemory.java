package io.flashstock.order.placement;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.Outcome;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.StockKeys;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.stereotype.Component;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this order-api knows, without asking Redis, of the items an order cannot be taken from: sold out (for more
 * units than were left), sold through another gate, or unknown. After a sell-out most requests are such refusals;
 * answered from here, they cost no Redis round trip (and an unknown item no database query either).
 * <p>
 * A refusal is remembered only until the item's counter may have risen, so nothing is ever left unsold: every Lua
 * step that raises a counter or replaces it (a give-back, a token's expiry, a load: reset, reload, heal, recount)
 * publishes the counter's key on {@link #CHANNEL}, and hearing it forgets the item. Between those, a counter only
 * falls, so a refusal learnt from it stays true. A refusal learnt from an answer that may predate something heard
 * meanwhile is not kept ({@link #heard()}); a subscription (re)made forgets everything, since what was published
 * while it was down is lost; and whatever was heard, a refusal answers for at most {@code ttl}
 * ({@link RefusalMemorySettings}), which bounds what a lost notice, or a counter Redis lost, can delay.
 * <p>
 * Only orders without an Idempotency-Key or a pass are answered from here: the first answer to a key, and a pass's
 * own state, come before the stock in the gate's checks.
 */
@Component
public class RefusalMemory implements MessageListener, SubscriptionListener {

    /** Where the Lua steps that raise a counter publish its key (give-back.lua, token-expire.lua, load-stock.lua). */
    public static final String CHANNEL = "stock:raised";

    /**
     * What stands for an item: its gate ({@code null}: no such item) and the units it had left when the gate
     * answered ({@link Long#MAX_VALUE} when unknown: then only orders through another gate are refused).
     */
    private record Known(Gate gate, long remaining) {
    }

    private final Cache<String, Known> items;
    /** Counters heard of as raised, and subscriptions made: a refusal learnt before one of them is not kept. */
    private final AtomicLong heard = new AtomicLong();
    private final Counter recalled;

    @Autowired
    RefusalMemory(RefusalMemorySettings settings, MeterRegistry meters) {
        this(settings, Ticker.systemTicker(), meters);
    }

    RefusalMemory(RefusalMemorySettings settings, Ticker ticker, MeterRegistry meters) {
        this.items = Caffeine.newBuilder().expireAfterWrite(settings.ttl()).maximumSize(settings.maxItems())
                .ticker(ticker).build();
        this.recalled = Counter.builder("flashstock.order.refusals.recalled")
                .description("Orders refused from memory (sold out, wrong gate, unknown item), without asking Redis")
                .register(meters);
    }

    /** The refusal that stands for a plain order (no Idempotency-Key, no pass), if one does. */
    Optional<Outcome> recall(OrderCommand order) {
        if (order.idempotencyKey() != null || order.pass() != null) {
            return Optional.empty();
        }
        return recall(order.itemCode(), order.gate(), order.quantity());
    }

    /** The refusal that stands for {@code quantity} of the item through {@code gate}, if one does. */
    public Optional<Outcome> recall(String itemCode, Gate gate, int quantity) {
        Known known = items.getIfPresent(itemCode);
        if (known == null) {
            return Optional.empty();
        }
        Outcome refusal;
        if (known.gate() == null) {
            refusal = new Outcome.UnknownItem();
        } else if (known.gate() != gate) {
            refusal = new Outcome.WrongGate(known.gate());
        } else if (quantity > known.remaining()) {
            refusal = new Outcome.SoldOut(known.remaining());
        } else {
            return Optional.empty();
        }
        recalled.increment();
        return Optional.of(refusal);
    }

    /** Read before asking the gate; the answer is remembered only if nothing was heard since. */
    public long heard() {
        return heard.get();
    }

    /** Remembers the gate's answer to a plain order or one with a key (not one with a pass: its state is its own). */
    void remember(OrderCommand order, Outcome outcome, long heardBefore) {
        if (order.pass() == null) {
            remember(order.itemCode(), order.gate(), outcome, heardBefore);
        }
    }

    /**
     * Remembers the gate's answer to an order of the item through {@code gate}, if it is a refusal that stands until
     * the counter rises, and nothing was heard since {@code heardBefore}.
     */
    public void remember(String itemCode, Gate gate, Outcome outcome, long heardBefore) {
        Known known;
        if (outcome instanceof Outcome.SoldOut soldOut) {
            known = new Known(gate, soldOut.remaining());
        } else if (outcome instanceof Outcome.WrongGate wrongGate) {
            known = new Known(wrongGate.gate(), Long.MAX_VALUE);
        } else if (outcome instanceof Outcome.UnknownItem) {
            known = new Known(null, Long.MAX_VALUE);
        } else {
            return;
        }
        if (heard.get() != heardBefore) {
            return;
        }
        items.put(itemCode, known);
        // heard meanwhile: the message may have been handled before the put, and forgot nothing
        if (heard.get() != heardBefore) {
            items.asMap().remove(itemCode, known);
        }
    }

    /** A counter was raised or replaced: its item's refusals no longer stand. */
    void raised(String itemCode) {
        heard.incrementAndGet();
        items.invalidate(itemCode);
    }

    /** Nothing heard can be trusted to be all there was: everything is asked again. */
    void forgetAll() {
        heard.incrementAndGet();
        items.invalidateAll();
    }

    @Override
    public void onMessage(Message message, byte[] pattern) {
        raised(StockKeys.itemOf(new String(message.getBody(), StandardCharsets.UTF_8)));
    }

    /** Also on Lettuce's subscription anew after a reconnect: what was published while it was down is lost. */
    @Override
    public void onChannelSubscribed(byte[] channel, long count) {
        forgetAll();
    }
}
