package io.flashstock.order.web;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.util.unit.DataSize;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InputRulesTest {

    private final InputRules rules = new InputRules(new WebSettings(10, 12, DataSize.ofKilobytes(4)));

    @ParameterizedTest
    @ValueSource(strings = {"1234", "A", "item-1", "a.b_c-d", "123456789012"})
    void acceptsItemCodesOfLettersDigitsAndSeparators(String itemCode) {
        assertThatCode(() -> rules.checkOrder(itemCode, "u", 1, null)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "-a", ".a", "a b", "a{b}", "käse", "a/b", "a:b", "1234567890123"})
    void refusesOtherItemCodes(String itemCode) {
        assertThatThrownBy(() -> rules.checkOrder(itemCode, "u", 1, null)).isInstanceOfSatisfying(
                ProblemException.class, e -> assertThat(e.type()).isEqualTo(ProblemType.INVALID_REQUEST));
    }

    @Test
    void quantityRunsFromOneToTheConfiguredMaximum() {
        assertThatCode(() -> rules.checkOrder("a", "u", 1, null)).doesNotThrowAnyException();
        assertThatCode(() -> rules.checkOrder("a", "u", 10, null)).doesNotThrowAnyException();
        assertThatThrownBy(() -> rules.checkOrder("a", "u", 0, null)).hasMessageContaining("between 1 and 10");
        assertThatThrownBy(() -> rules.checkOrder("a", "u", 11, null)).hasMessageContaining("between 1 and 10");
        assertThatThrownBy(() -> rules.checkOrder("a", "u", null, null)).hasMessageContaining("quantity is required");
    }

    @Test
    void reportsEveryBrokenRuleAtOnce() {
        assertThatThrownBy(() -> rules.checkOrder(null, "", -1, "bad key"))
                .isInstanceOfSatisfying(ProblemException.class,
                        e -> assertThat((List<?>) e.properties().get("errors")).hasSize(4));
    }

    @Test
    void userIdsAreValidUnicode() {
        assertThatCode(() -> rules.checkOrder("a", "fan-\ud83d\ude00", 1, null)).as("a surrogate pair: 😀")
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> rules.checkOrder("a", "u\ud800", 1, null)).hasMessageContaining("valid Unicode");
        assertThatThrownBy(() -> rules.checkOrder("a", "\udc00u", 1, null)).hasMessageContaining("valid Unicode");
        assertThatThrownBy(() -> rules.checkOrder("a", "\ude00\ud83d", 1, null)).hasMessageContaining("valid Unicode");
    }

    @Test
    void userIdsAreAtMost64CharactersWithoutControlCharacters() {
        assertThatCode(() -> rules.checkOrder("a", "ü:user@example.com", 1, null)).doesNotThrowAnyException();
        assertThatCode(() -> rules.checkOrder("a", "u".repeat(64), 1, null)).doesNotThrowAnyException();
        assertThatThrownBy(() -> rules.checkOrder("a", "u".repeat(65), 1, null)).hasMessageContaining("userId");
        assertThatThrownBy(() -> rules.checkOrder("a", "u\n", 1, null)).hasMessageContaining("control");
    }

    @Test
    void idempotencyKeysAreVisibleAsciiOfAtMost128() {
        assertThatCode(() -> rules.checkOrder("a", "u", 1, "k".repeat(128))).doesNotThrowAnyException();
        assertThatCode(() -> rules.checkOrder("a", "u", 1, "order-42:{x}")).doesNotThrowAnyException();
        assertThatThrownBy(() -> rules.checkOrder("a", "u", 1, "k".repeat(129))).hasMessageContaining("Idempotency-Key");
        assertThatThrownBy(() -> rules.checkOrder("a", "u", 1, "")).hasMessageContaining("Idempotency-Key");
        assertThatThrownBy(() -> rules.checkOrder("a", "u", 1, "clé")).hasMessageContaining("Idempotency-Key");
    }
}
