package io.flashstock.order.reconciliation;

import io.flashstock.order.reconciliation.ReconciliationReport.Comparison;
import io.flashstock.order.reconciliation.ReconciliationReport.Invariant;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

class InvariantTest {

    @Test
    void aBoundHoldsUpToItsMaximumAndSaysByHowMuchItIsOver() {
        Invariant atTheBound = Invariant.atMost("not-oversold", 5, 5, "oversold by 0 units");
        Invariant over = Invariant.atMost("not-oversold", 5, 7, "oversold by 2 units");

        assertThat(atTheBound.holds()).isTrue();
        assertThat(atTheBound.detail()).isNull();
        assertThat(Invariant.atMost("not-oversold", 5, 3, "unused").difference()).as("headroom").isEqualTo(-2);
        assertThat(over.holds()).isFalse();
        assertThat(over.expected()).isEqualTo(5);
        assertThat(over.actual()).isEqualTo(7);
        assertThat(over.difference()).isEqualTo(2);
        assertThat(over.detail()).isEqualTo("oversold by 2 units");
        assertThat(over.comparison()).isEqualTo(Comparison.AT_MOST);
    }

    @Test
    void theComparisonIsAddedToTheJsonBesideTheFieldsClientsAlreadyRead() {
        var json = JsonMapper.builder().build();

        var equality = json.readTree(json.writeValueAsString(Invariant.of("redis-matches-orders", 3, 2L, "drift")));
        var bound = json.readTree(json.writeValueAsString(Invariant.atMost("not-oversold", 5, 7, "oversold by 2 units")));

        assertThat(equality.propertyNames()).containsExactlyInAnyOrder("name", "holds", "expected", "actual",
                "difference", "detail", "comparison");
        assertThat(equality.get("comparison").asString()).isEqualTo("equal");
        assertThat(equality.get("difference").asLong()).isEqualTo(-1);
        assertThat(bound.get("comparison").asString()).isEqualTo("at-most");
    }
}
