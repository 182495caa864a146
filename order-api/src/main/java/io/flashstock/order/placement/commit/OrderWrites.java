package io.flashstock.order.placement.commit;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import io.flashstock.contract.OutboxStatus;
import io.flashstock.order.placement.core.OrderAnswer;
import io.flashstock.order.placement.core.OrderCommand;
import io.flashstock.order.placement.core.OrderMetrics;
import io.flashstock.order.placement.core.PlacedOrder;
import io.flashstock.order.stock.Gate;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.util.Optional;

/**
 * Writes an order whose units a gate holds already (the token gate's redemption) through the same group commit,
 * load fence and checked commit as the Redis gate's orders, and looks an order up by its code. The caller owns
 * the units: nothing here gives stock back.
 */
@Component
public class OrderWrites {

    /** How the write ended. */
    public sealed interface Written {
        /** Committed: the order stands. */
        record Committed(OrderAnswer answer) implements Written {
        }

        /** The item's counter was rebuilt since the units were taken under {@code loadEpoch}: not written. */
        record Fenced() implements Written {
        }

        /** An order with this code is in the database already: not written again. */
        record Duplicate() implements Written {
        }

        /** Not written, for {@code cause}. */
        record NotWritten(RuntimeException cause) implements Written {
        }

        /** The commit failed and whether it took could not be found out. */
        record Unknown(RuntimeException cause) implements Written {
        }
    }

    private final TimeBasedEpochGenerator uuids = Generators.timeBasedEpochGenerator();
    private final GroupCommit groupCommit;
    private final OrderMetrics metrics;
    private final JdbcClient jdbc;
    private final Clock clock;

    OrderWrites(GroupCommit groupCommit, OrderMetrics metrics, JdbcClient jdbc, Clock clock) {
        this.groupCommit = groupCommit;
        this.metrics = metrics;
        this.jdbc = jdbc;
        this.clock = clock;
    }

    /** Writes the order and its outbox row (status NEW); {@code remaining} is the counter after its units left. */
    public Written write(String orderCode, String itemCode, String userId, int quantity, long generation,
                         long loadEpoch, long remaining) {
        var command = new OrderCommand(itemCode, userId, quantity, null);
        var order = new PlacedOrder(orderCode, uuids.generate(), command, generation, loadEpoch, remaining,
                clock.instant());
        try {
            groupCommit.write(order, OutboxStatus.NEW);
        } catch (GroupCommit.Fenced fenced) {
            return new Written.Fenced();
        } catch (CheckedCommit.NotWritten notWritten) {
            if (notWritten.getCause() instanceof DuplicateKeyException) {
                return new Written.Duplicate();
            }
            return new Written.NotWritten(OrderFailures.failure(notWritten.getCause(),
                    "the order could not be written; the token still holds its units"));
        } catch (CheckedCommit.OutcomeUnknown unknown) {
            return new Written.Unknown(OrderFailures.outcomeUnknown(orderCode, "the database did not confirm the "
                    + "order; retry with the same token, which tells", unknown));
        }
        return new Written.Committed(order.answer());
    }

    /**
     * The order with this code, as its first answer was.
     *
     * @throws DataAccessException when the database cannot be asked
     */
    public Optional<OrderAnswer> find(String orderCode) {
        return jdbc.sql("SELECT order_code, item_code, quantity, remaining FROM purchase_order WHERE order_code = ?")
                .param(orderCode)
                .query((rs, row) -> new OrderAnswer(rs.getString(1), rs.getString(2), rs.getInt(3), rs.getLong(4)))
                .optional();
    }

    /** The outcome counters of {@code gate}'s orders. */
    public OrderMetrics.Outcomes outcomes(Gate gate) {
        return metrics.of(gate);
    }
}
