package io.flashstock.order.web;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Told of every request refused with a 4xx problem before or outside its feature's own answer (bad input, wrong
 * media type, too large), so that a feature can count its refusals without {@code web} knowing the features.
 */
public interface RejectionListener {

    void rejected(HttpServletRequest request);
}
