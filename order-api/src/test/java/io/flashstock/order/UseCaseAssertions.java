package io.flashstock.order;

import io.flashstock.order.web.ProblemException;
import io.flashstock.order.web.ProblemType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** What the use-case tests assert the same way: a refusal's problem type, and the orders counted. */
public final class UseCaseAssertions {

    private UseCaseAssertions() {
    }

    /** The call refuses with a {@link ProblemException} of {@code type}; returned for its details. */
    public static ProblemException assertProblem(ThrowingCallable call, ProblemType type) {
        var thrown = catchThrowableOfType(ProblemException.class, call);
        assertThat(thrown).as("a ProblemException").isNotNull();
        assertThat(thrown.type()).isEqualTo(type);
        return thrown;
    }

    /** The {@code flashstock.orders} counters that moved, as "gate outcome" to count. */
    public static Map<String, Double> ordersCounted(MeterRegistry meters) {
        var moved = new TreeMap<String, Double>();
        for (Counter counter : meters.find("flashstock.orders").counters()) {
            if (counter.count() != 0) {
                moved.put(counter.getId().getTag("gate") + " " + counter.getId().getTag("outcome"), counter.count());
            }
        }
        return moved;
    }
}
