package io.flashstock.order;

import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.refusal.Refusal;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** What the use-case tests assert the same way: a refusal's reason, and the orders (or other events) counted. */
public final class UseCaseAssertions {

    private UseCaseAssertions() {
    }

    /** The call refuses with a {@link RefusedException} of {@code refusal}; returned for its details. */
    public static RefusedException assertProblem(ThrowingCallable call, Refusal refusal) {
        var thrown = catchThrowableOfType(RefusedException.class, call);
        assertThat(thrown).as("a RefusedException").isNotNull();
        assertThat(thrown.refusal()).isEqualTo(refusal);
        return thrown;
    }

    /** The {@code flashstock.orders} counters that moved, as "gate outcome" to count. */
    public static Map<String, Double> ordersCounted(MeterRegistry meters) {
        return countersMoved(meters, "flashstock.orders", "gate", "outcome");
    }

    /** The counters named {@code name} that moved, as their {@code tags}' values (joined by spaces) to count. */
    public static Map<String, Double> countersMoved(MeterRegistry meters, String name, String... tags) {
        var moved = new TreeMap<String, Double>();
        for (Counter counter : meters.find(name).counters()) {
            if (counter.count() != 0) {
                var key = new StringJoiner(" ");
                for (String tag : tags) {
                    key.add(counter.getId().getTag(tag));
                }
                moved.put(key.toString(), counter.count());
            }
        }
        return moved;
    }
}
