package io.flashstock.order.placement.gate;

import io.flashstock.order.placement.core.FirstAnswer;
import io.flashstock.order.placement.core.OrderCommand;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GateResultTest {

    @Test
    void parsesEveryVerdictOfTheScript() {
        assertThat(GateResult.parse(List.of("TAKEN", "99", "3", "7")))
                .isEqualTo(new GateResult.Taken(99, 3, 7));
        assertThat(GateResult.parse(List.of("SOLD_OUT", "0", "3"))).isEqualTo(new GateResult.SoldOut(0));
        assertThat(GateResult.parse(List.of("UNKNOWN"))).isEqualTo(new GateResult.Unknown());
        assertThat(GateResult.parse(List.of("UNTRUSTED"))).isEqualTo(new GateResult.Untrusted());
        assertThat(GateResult.parse(List.of("LIMIT", "50", "2", "4", "5")))
                .isEqualTo(new GateResult.LimitReached(4, 5));
        assertThatThrownBy(() -> GateResult.parse(List.of("MAYBE"))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aReplayCarriesTheFirstAnswerEvenWhenTheUserIdHoldsTheSeparator() {
        var replay = GateResult.parse(List.of("REPLAY", "0190-abc:2:97:4:mail:me@example.com"));

        assertThat(replay).isEqualTo(new GateResult.Replay(
                new FirstAnswer("0190-abc", 2, 97, 4, "mail:me@example.com")));
        var first = ((GateResult.Replay) replay).first();
        assertThat(first.sameOrder(new OrderCommand("i", "mail:me@example.com", 2, "k"))).isTrue();
        assertThat(first.sameOrder(new OrderCommand("i", "mail:me@example.com", 1, "k"))).isFalse();
        assertThat(first.sameOrder(new OrderCommand("i", "someone-else", 2, "k"))).isFalse();
    }
}
