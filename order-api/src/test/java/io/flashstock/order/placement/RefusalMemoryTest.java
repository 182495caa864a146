package io.flashstock.order.placement;

import io.flashstock.order.placement.core.GatePass;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.Outcome;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.stock.StockKeys;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.DefaultMessage;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/** The memory of refusals that stand until a counter rises, with a hand-moved clock and messages sent by hand. */
class RefusalMemoryTest {

    private static final Duration TTL = Duration.ofSeconds(1);

    private final AtomicLong nanos = new AtomicLong();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final RefusalMemory memory = new RefusalMemory(new RefusalMemorySettings(TTL, 100), nanos::get, meters);

    @Test
    void aSellOutStandsForMoreUnitsThanWereLeftAndThroughNoOtherGate() {
        remember("shoe", Gate.REDIS, new Outcome.SoldOut(1));

        assertThat(memory.recall(plain("shoe", 2))).contains(new Outcome.SoldOut(1));
        assertThat(memory.recall(plain("shoe", 1))).as("one unit may be left: Redis is asked").isEmpty();
        assertThat(memory.recall("shoe", Gate.TOKEN, 2)).contains(new Outcome.WrongGate(Gate.REDIS));
        assertThat(memory.recall(plain("other", 2))).isEmpty();
        assertThat(meters.counter("flashstock.order.refusals.recalled").count()).isEqualTo(2);
    }

    @Test
    void aWrongGateAndAnUnknownItemStand() {
        remember("row-item", Gate.REDIS, new Outcome.WrongGate(Gate.DB_LOCK));
        remember("nothing", Gate.REDIS, new Outcome.UnknownItem());

        assertThat(memory.recall(plain("row-item", 1))).contains(new Outcome.WrongGate(Gate.DB_LOCK));
        assertThat(memory.recall("row-item", Gate.DB_LOCK, 1)).as("its own gate is asked").isEmpty();
        assertThat(memory.recall(plain("nothing", 1))).contains(new Outcome.UnknownItem());
    }

    @Test
    void whatDoesNotStandUntilACounterRisesIsNotRemembered() {
        remember("shoe", Gate.REDIS, new Outcome.LimitReached(2, 2));
        remember("shoe", Gate.REDIS, new Outcome.StockReloading());

        assertThat(memory.recall(plain("shoe", 1))).isEmpty();
    }

    @Test
    void aRaisedCounterForgetsItsItemOnly() {
        remember("shoe", Gate.REDIS, new Outcome.SoldOut(0));
        remember("hat", Gate.REDIS, new Outcome.SoldOut(0));

        memory.onMessage(raised("shoe"), null);

        assertThat(memory.recall(plain("shoe", 1))).isEmpty();
        assertThat(memory.recall(plain("hat", 1))).contains(new Outcome.SoldOut(0));
    }

    @Test
    void anAnswerGivenBeforeARaiseHeardSinceIsNotKept() {
        long heard = memory.heard();
        // the give-back's message arrives while the sold-out answer it followed is on its way back
        memory.onMessage(raised("shoe"), null);
        memory.remember(plain("shoe", 1), new Outcome.SoldOut(0), heard);

        assertThat(memory.recall(plain("shoe", 1))).isEmpty();
    }

    @Test
    void aSubscriptionMadeAnewForgetsEverything() {
        remember("shoe", Gate.REDIS, new Outcome.SoldOut(0));
        long heard = memory.heard();

        memory.onChannelSubscribed(RefusalMemory.CHANNEL.getBytes(StandardCharsets.UTF_8), 1);
        memory.remember(plain("hat", 1), new Outcome.SoldOut(0), heard);

        assertThat(memory.recall(plain("shoe", 1))).isEmpty();
        assertThat(memory.recall(plain("hat", 1))).isEmpty();
    }

    @Test
    void aRefusalAnswersForAtMostItsTtlWhateverWasHeard() {
        remember("shoe", Gate.REDIS, new Outcome.SoldOut(0));

        nanos.addAndGet(TTL.toNanos() - 1);
        assertThat(memory.recall(plain("shoe", 1))).isPresent();
        nanos.addAndGet(1);
        assertThat(memory.recall(plain("shoe", 1))).isEmpty();
    }

    @Test
    void ordersWithAKeyOrAPassAreAlwaysAskedForButTeachWhatTheyLearn() {
        memory.remember(keyed("shoe", 1), new Outcome.SoldOut(0), memory.heard());

        assertThat(memory.recall(keyed("shoe", 1))).as("a key's first answer comes before the stock").isEmpty();
        var ticket = new OrderCommand("shoe", "ann", 1, null, mock(GatePass.class));
        assertThat(memory.recall(ticket)).isEmpty();
        assertThat(memory.recall(plain("shoe", 1))).contains(new Outcome.SoldOut(0));
    }

    @Test
    void aPassAnswerIsNotRemembered() {
        var ticket = new OrderCommand("shoe", "ann", 1, null, mock(GatePass.class));
        memory.remember(ticket, new Outcome.SoldOut(0), memory.heard());

        assertThat(memory.recall(plain("shoe", 1))).isEqualTo(Optional.empty());
    }

    private void remember(String item, Gate gate, Outcome outcome) {
        memory.remember(item, gate, outcome, memory.heard());
    }

    private static OrderCommand plain(String item, int quantity) {
        return new OrderCommand(item, "crowd", quantity, null);
    }

    private static OrderCommand keyed(String item, int quantity) {
        return new OrderCommand(item, "crowd", quantity, "key-1");
    }

    private static DefaultMessage raised(String item) {
        return new DefaultMessage(RefusalMemory.CHANNEL.getBytes(StandardCharsets.UTF_8),
                StockKeys.counter(item).getBytes(StandardCharsets.UTF_8));
    }
}
