package io.flashstock.order.placement;

import io.flashstock.order.web.RejectionListener;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.stereotype.Component;

/**
 * Counts an order endpoint's requests that {@code web} refused before they reached their gate (invalid input,
 * wrong media type, too large) as {@code flashstock.orders{outcome=rejected}} of the endpoint's gate.
 */
@Component
class OrderRejections implements RejectionListener {

    private final OrderMetrics metrics;

    OrderRejections(OrderMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void rejected(HttpServletRequest request) {
        OrderController.gateOf(request.getRequestURI()).ifPresent(gate -> metrics.of(gate).rejected());
    }
}
