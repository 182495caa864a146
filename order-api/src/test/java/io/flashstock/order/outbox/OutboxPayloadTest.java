package io.flashstock.order.outbox;

import io.flashstock.contract.StockDeducted;
import io.flashstock.contract.StockEvent;
import io.flashstock.contract.StockReset;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class OutboxPayloadTest {

    private final JsonMapper mapper = JsonMapper.builder().build();
    private final Outbox outbox = new Outbox(null, mapper);

    @Test
    void aDeductionIsWrittenWithItsTypeAndReadBackAsAStockEvent() {
        var event = new StockDeducted(UUID.randomUUID(), UUID.randomUUID().toString(), "1234", "u1", 3, 2,
                Instant.parse("2030-01-02T03:04:05.123456Z"));

        String payload = outbox.payload(event);

        assertThat(mapper.readTree(payload).get("type").asString()).isEqualTo(StockDeducted.TYPE);
        assertThat(mapper.readTree(payload).get("generation").asLong()).isEqualTo(2);
        assertThat(mapper.readValue(payload, StockEvent.class)).isEqualTo(event);
    }

    @Test
    void aResetWithoutLimitIsWrittenWithItsType() {
        var event = new StockReset(UUID.randomUUID(), "1234", 100, null, 1, Instant.parse("2030-01-02T03:04:05Z"));

        String payload = outbox.payload(event);

        assertThat(mapper.readTree(payload).get("type").asString()).isEqualTo(StockReset.TYPE);
        assertThat(mapper.readValue(payload, StockEvent.class)).isEqualTo(event);
    }
}
