package io.flashstock.order.queue;

import io.flashstock.order.placement.core.GatePass;
import io.flashstock.order.placement.core.RecordedPasses;
import io.flashstock.order.stock.Gate;
import org.springframework.stereotype.Component;

import java.util.Optional;

/** The admission an order in doubt was placed with, restored from its ticket, for its settlement. */
@Component
class RecordedAdmissions implements RecordedPasses {

    @Override
    public Gate gate() {
        return Gate.QUEUE;
    }

    @Override
    public Optional<GatePass> restore(String recorded) {
        return Ticket.parse(recorded).map(Admission::new);
    }
}
