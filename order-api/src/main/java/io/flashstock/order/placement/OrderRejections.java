package io.flashstock.order.placement;

import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.placement.core.OrderMetrics;
import io.flashstock.order.stock.Gate;
import io.flashstock.order.web.RejectionListener;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;

import java.util.Optional;

/**
 * Counts an order endpoint's requests answered with a thrown 4xx problem (invalid input, wrong media type, too large,
 * a refused ticket or token) as {@code flashstock.orders{outcome=rejected}} of the request's gate: the endpoint's, or
 * for an order at {@link GateEndpoints#REDIS} with a waiting room's ticket or a purchase token, that gate's. The
 * gates count their returned refusals themselves; this is the one place the thrown ones are counted.
 */
@Component
class OrderRejections implements RejectionListener {

    private final OrderMetrics metrics;
    private final ObjectProvider<TokenRedemption> tokens;

    OrderRejections(OrderMetrics metrics, ObjectProvider<TokenRedemption> tokens) {
        this.metrics = metrics;
        this.tokens = tokens;
    }

    @Override
    public void rejected(HttpServletRequest request) {
        gateOf(request).ifPresent(gate -> metrics.of(gate).rejected());
    }

    private Optional<Gate> gateOf(HttpServletRequest request) {
        Optional<Gate> endpoint = GateEndpoints.gateOf(request.getRequestURI());
        if (endpoint.isEmpty() || endpoint.get() != Gate.REDIS) {
            return endpoint;
        }
        if (request.getHeader(OrderController.QUEUE_TICKET) != null) {
            return Optional.of(Gate.QUEUE);
        }
        return TokenRedemption.of(request.getHeader(HttpHeaders.AUTHORIZATION), tokens).isPresent()
                ? Optional.of(Gate.TOKEN) : endpoint;
    }
}
