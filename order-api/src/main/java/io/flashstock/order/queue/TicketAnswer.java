package io.flashstock.order.queue;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A ticket, as its entry and its polls answer it: {@code status} WAITING (with {@code position},
 * {@code estimatedWaitSeconds} and {@code pollAfterMillis}), ADMITTED (until {@code admittedUntil}, ISO-8601
 * UTC), ORDERED (with {@code orderCode}), SOLD_OUT or EXPIRED. Fields that do not apply are left out.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record TicketAnswer(String ticket, String itemCode, String userId, Integer quantity, String status, Long position,
                    Double estimatedWaitSeconds, String admittedUntil, String orderCode, Long pollAfterMillis) {
}
