package io.flashstock.order.queue;

import org.junit.jupiter.api.Test;

import java.util.HashSet;

import static org.assertj.core.api.Assertions.assertThat;

class TicketTest {

    @Test
    void aTicketCarriesItsItemAndAnUnguessableId() {
        var ticket = Ticket.issue("drop-2026.11_a");
        assertThat(Ticket.parse(ticket.code())).contains(ticket);
        var ids = new HashSet<String>();
        for (int i = 0; i < 1000; i++) {
            ids.add(Ticket.issue("x").id());
        }
        assertThat(ids).hasSize(1000).allMatch(id -> id.length() == 22);
    }

    @Test
    void whatCannotBeATicketIsRefusedBeforeRedis() {
        String code = Ticket.issue("item").code();
        assertThat(Ticket.parse(null)).isEmpty();
        assertThat(Ticket.parse("")).isEmpty();
        assertThat(Ticket.parse(code.substring(0, 22))).isEmpty();
        assertThat(Ticket.parse(code + "!")).isEmpty();
        assertThat(Ticket.parse("a".repeat(109))).isEmpty();
        // decodes, but to no item code InputRules accepts (a brace would break the hash tag)
        assertThat(Ticket.parse(code.substring(0, 22) + "e30")).isEmpty();
    }
}
