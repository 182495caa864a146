package io.flashstock.order.web;

import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.stock.Gate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.util.List;
import java.util.Locale;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * User ids, Idempotency-Keys and item codes that differ only in case or in trailing spaces are different
 * identities, in Redis (whose keys are bytes) and in the database alike: a collation that compares them as
 * equal would merge two buyers' per-user limits, replay one order for another, or sell one item's stock
 * under another item's code.
 */
class LookalikeIdentitiesIT extends OrderApiIntegrationTest {

    private static final List<String> LOOKALIKE_USERS = List.of("Bob", "bob ", "bob");

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "lookalike");
    }

    @Test
    void lookalikeUsersHaveTheirOwnLimitInRedisAndAfterARebuildFromTheOrders() {
        String item = uniqueItem("lookalike-users");
        setStock(item, 10, 1);
        for (String user : LOOKALIKE_USERS) {
            assertThat(order(Gate.REDIS, item, user, 1).status()).as("first unit of [%s]", user).isEqualTo(200);
        }

        assertThat(buyers(item)).containsExactlyInAnyOrderElementsOf(LOOKALIKE_USERS);
        // a rebuild counts each user's units from the orders (GROUP BY user_id) into their Redis keys
        assertThat(reload(item).status()).isEqualTo(200);
        for (String user : LOOKALIKE_USERS) {
            assertThat(order(Gate.REDIS, item, user, 1).code()).as("second unit of [%s]", user)
                    .isEqualTo("PER_USER_LIMIT_REACHED");
        }
        assertThat(orderCount(item)).isEqualTo(3);
    }

    @Test
    void lookalikeUsersHaveTheirOwnLimitAtTheDbLockGate() {
        String item = uniqueItem("lookalike-db-users");
        setStock(item, 10, 1, Gate.DB_LOCK);
        for (String user : LOOKALIKE_USERS) {
            assertThat(order(Gate.DB_LOCK, item, user, 1).status()).as("first unit of [%s]", user).isEqualTo(200);
        }
        for (String user : LOOKALIKE_USERS) {
            assertThat(order(Gate.DB_LOCK, item, user, 1).code()).as("second unit of [%s]", user)
                    .isEqualTo("PER_USER_LIMIT_REACHED");
        }

        assertThat(buyers(item)).containsExactlyInAnyOrderElementsOf(LOOKALIKE_USERS);
        assertThat(dbRemaining(item)).isEqualTo(7);
    }

    @ParameterizedTest
    // the two-step gates need a ticket or a token per order: their own ITs check the same
    @EnumSource(value = Gate.class, names = {"REDIS", "DB_LOCK"})
    void keysDifferingInCaseAreTwoOrders(Gate gate) {
        String item = uniqueItem("lookalike-keys");
        setStock(item, 10, null, gate);

        var first = order(gate, item, "ann", 1, "Idempotency-Key", "Key-1");
        var second = order(gate, item, "ann", 1, "Idempotency-Key", "key-1");
        var replay = order(gate, item, "ann", 1, "Idempotency-Key", "Key-1");

        assertThat(first.status()).isEqualTo(200);
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.json().get("orderCode").asString()).as("a new order, not a replay of Key-1")
                .isNotEqualTo(first.json().get("orderCode").asString());
        assertThat(replay.json().get("orderCode").asString()).isEqualTo(first.json().get("orderCode").asString());
        assertThat(orderCount(item)).isEqualTo(2);
    }

    @ParameterizedTest
    // the two-step gates need a ticket or a token per order: their own ITs check the same
    @EnumSource(value = Gate.class, names = {"REDIS", "DB_LOCK"})
    void anItemCodeDifferingInCaseIsAnotherItem(Gate gate) {
        String item = "Case-" + UUID.randomUUID().toString().substring(0, 8);
        String lookalike = item.toLowerCase(Locale.ROOT);
        setStock(item, 5, null, gate);
        long epoch = loadEpoch(item);

        var answer = order(gate, lookalike, "ann", 1);

        assertThat(answer.status()).as("%s", answer).isEqualTo(404);
        assertThat(answer.code()).isEqualTo("UNKNOWN_ITEM");
        assertThat(loadEpoch(item)).as("the item's counter was not rebuilt").isEqualTo(epoch);
        assertThat(orderCount(item) + orderCount(lookalike)).isZero();
        assertThat(order(gate, item, "ann", 1).status()).isEqualTo(200);

        setStock(lookalike, 3, null, gate);
        assertThat(jdbc.sql("SELECT item_code, baseline FROM stock_item WHERE item_code IN (?, ?)")
                .params(item, lookalike).query((rs, n) -> rs.getString(1) + "=" + rs.getLong(2)).list())
                .containsExactlyInAnyOrder(item + "=5", lookalike + "=3");
    }

    /** The distinct user ids of the item's orders, as the database tells them apart. */
    private List<String> buyers(String item) {
        return jdbc.sql("SELECT DISTINCT user_id FROM purchase_order WHERE item_code = ?").param(item)
                .query(String.class).list();
    }

    private long loadEpoch(String item) {
        return jdbc.sql("SELECT load_epoch FROM stock_item WHERE item_code = ?").param(item).query(Long.class).single();
    }
}
