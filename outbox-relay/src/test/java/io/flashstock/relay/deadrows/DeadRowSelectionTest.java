package io.flashstock.relay.deadrows;

import io.flashstock.relay.web.ProblemException;
import io.flashstock.relay.web.ProblemType;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a requeue request may select; everything else is refused before the database is touched. */
class DeadRowSelectionTest {

    @Test
    void selectsOneRowAnItemOrAll() {
        assertThat(DeadRowSelection.of(Map.of("id", new String[] {"42"}))).isEqualTo(new DeadRowSelection(42L, null));
        assertThat(DeadRowSelection.of(Map.of("itemCode", new String[] {"sku-1.a_b"})))
                .isEqualTo(new DeadRowSelection(null, "sku-1.a_b"));
        assertThat(DeadRowSelection.of(Map.of("all", new String[] {"true"})).all()).isTrue();
    }

    @Test
    void refusesAnythingElse() {
        refused(Map.of(), "exactly one");
        refused(Map.of("id", new String[] {"1"}, "all", new String[] {"true"}), "exactly one");
        refused(Map.of("id", new String[] {"1", "2"}), "more than once");
        refused(Map.of("all", new String[] {"false"}), "all must be true");
        refused(Map.of("id", new String[] {"0"}), "id must be");
        refused(Map.of("id", new String[] {"-3"}), "id must be");
        refused(Map.of("id", new String[] {"1e3"}), "id must be");
        refused(Map.of("id", new String[] {"9".repeat(19)}), "id must be");
        refused(Map.of("itemCode", new String[] {""}), "itemCode must be");
        refused(Map.of("itemCode", new String[] {"x".repeat(65)}), "itemCode must be");
        refused(Map.of("itemCode", new String[] {"{sku}"}), "itemCode must be");
        refused(Map.of("itemCode", new String[] {"ａｂｃ"}), "itemCode must be");
        var misspelt = new LinkedHashMap<String, String[]>();
        misspelt.put("all", new String[] {"true"});
        misspelt.put("itemcode", new String[] {"sku-1"});
        refused(misspelt, "unknown parameter 'itemcode'");
    }

    private static void refused(Map<String, String[]> parameters, String message) {
        assertThatThrownBy(() -> DeadRowSelection.of(parameters)).isInstanceOfSatisfying(ProblemException.class,
                problem -> {
                    assertThat(problem.type()).isEqualTo(ProblemType.INVALID_REQUEST);
                    assertThat(problem.getMessage()).contains(message);
                });
    }
}
