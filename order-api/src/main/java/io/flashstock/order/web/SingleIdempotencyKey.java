package io.flashstock.order.web;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.servlet.HandlerInterceptor;

import java.util.Collections;
import java.util.List;

/**
 * Refuses an order that carries more than one {@code Idempotency-Key} header line, before its body is read.
 * Spring would join them into one key ("k1,k2") that neither of the client's keys replays. Registered by the
 * features on their order endpoints.
 */
public class SingleIdempotencyKey implements HandlerInterceptor {

    private static final String HEADER = "Idempotency-Key";

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        if (Collections.list(request.getHeaders(HEADER)).size() > 1) {
            String error = HEADER + " must be sent once";
            throw new ProblemException(ProblemType.INVALID_REQUEST, error).with("errors", List.of(error));
        }
        return true;
    }
}
