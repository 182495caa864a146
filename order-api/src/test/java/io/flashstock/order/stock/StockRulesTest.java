package io.flashstock.order.stock;

import io.flashstock.order.web.ProblemException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StockRulesTest {

    @Test
    void stockIsZeroOrMoreAndTheLimitAtLeastOne() {
        assertThatCode(() -> StockRules.checkStock(0L, null, null)).doesNotThrowAnyException();
        assertThatCode(() -> StockRules.checkStock(1_000_000L, 1, null)).doesNotThrowAnyException();
        assertThatThrownBy(() -> StockRules.checkStock(-1L, null, null)).hasMessageContaining("quantity");
        assertThatThrownBy(() -> StockRules.checkStock(null, null, null)).hasMessageContaining("quantity is required");
        assertThatThrownBy(() -> StockRules.checkStock(5L, 0, null)).hasMessageContaining("perUserLimit");
    }

    @Test
    void theGateIsRedisOrDbLockOrLeftOut() {
        assertThatCode(() -> StockRules.checkStock(5L, null, "redis")).doesNotThrowAnyException();
        assertThatCode(() -> StockRules.checkStock(5L, null, "db-lock")).doesNotThrowAnyException();
        assertThatThrownBy(() -> StockRules.checkStock(5L, null, "Redis")).hasMessageContaining("gate must be one of "
                + "redis, db-lock");
        assertThatThrownBy(() -> StockRules.checkStock(5L, null, "")).hasMessageContaining("gate");
        assertThatThrownBy(() -> StockRules.checkStock(-1L, 0, "mysql")).isInstanceOfSatisfying(ProblemException.class,
                e -> assertThat((List<?>) e.properties().get("errors")).hasSize(3));
    }
}
