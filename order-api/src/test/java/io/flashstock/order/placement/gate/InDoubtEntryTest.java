package io.flashstock.order.placement.gate;

import io.flashstock.order.placement.core.GatePass;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.stock.Gate;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.script.RedisScript;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** An order in doubt as Redis records it: what hold-in-doubt.lua joins around its time is read back whole. */
class InDoubtEntryTest {

    @Test
    void anEntryReadsBackWithAKeyAndAUserThatHoldTheSeparator() {
        var command = new OrderCommand("item", "user:with:colons", 3, "key:with:colons");
        var order = new PlacedOrder("order-1", UUID.randomUUID(), command, 7, 11, 0, Instant.EPOCH);

        String stored = InDoubtEntry.beforeTime(order) + ":" + 1234 + ":" + InDoubtEntry.afterTime(order, "owner-1");

        assertThat(stored).as("the units first, for the waiting room's scripts").startsWith("3:");
        assertThat(InDoubtEntry.parse("item", "order-1", stored)).contains(new InDoubtEntry("item", "order-1", 3, 7, 11,
                1234, "owner-1", Gate.REDIS, "", "key:with:colons", "user:with:colons"));
    }

    @Test
    void anEntryWithoutAKeyRecordsItsPass() {
        var pass = new TicketPass();
        var command = new OrderCommand("item", "user", 1, null, pass);
        var order = new PlacedOrder("order-2", UUID.randomUUID(), command, 1, 2, 0, Instant.EPOCH);

        var entry = InDoubtEntry.parse("item", "order-2",
                InDoubtEntry.beforeTime(order) + ":5:" + InDoubtEntry.afterTime(order, "owner-2")).orElseThrow();

        assertThat(entry.idempotencyKey()).isNull();
        assertThat(entry.gate()).isEqualTo(Gate.QUEUE);
        assertThat(entry.pass()).isEqualTo("ticket-code");
        assertThat(entry.command(pass)).isEqualTo(command);
    }

    @Test
    void anEntryOfAnOlderVersionIsNotRead() {
        assertThat(InDoubtEntry.parse("item", "order-3", "2")).isEmpty();
        assertThat(InDoubtEntry.parse("item", "order-3", "2:1:1:5:owner:no-such-gate::key:user")).isEmpty();
    }

    private static final class TicketPass implements GatePass {
        @Override
        public Gate gate() {
            return Gate.QUEUE;
        }

        @Override
        public List<String> keys() {
            return List.of();
        }

        @Override
        @SuppressWarnings("rawtypes")
        public RedisScript<List> take() {
            return null;
        }

        @Override
        public RedisScript<Long> giveBack() {
            return null;
        }

        @Override
        public String recorded() {
            return "ticket-code";
        }
    }
}
