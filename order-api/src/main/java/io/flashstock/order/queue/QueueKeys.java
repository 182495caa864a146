package io.flashstock.order.queue;

import io.flashstock.order.stock.StockKeys;

/**
 * The waiting room's Redis keys. An item's live beside its counter, under its hash tag, so that one script
 * may touch them with the counter: its tickets ({@code stock:{item}:queue:ticket:{id}}, hashes) and, per stock
 * generation g, the queue itself, which the scripts name from the generation they read (queue/common.lua):
 * {@code stock:{item}:queue:g:waiting} (tickets by arrival), {@code …:admitted} (unused admissions by their end),
 * {@code …:admitted-units}, {@code …:users} (user → ticket), {@code …:seq}, {@code …:tick} (the tick's lock).
 */
final class QueueKeys {

    private QueueKeys() {
    }

    static String ticket(Ticket ticket) {
        return StockKeys.counter(ticket.itemCode()) + ":queue:ticket:" + ticket.id();
    }

    /** The queue of one stock generation of the item. */
    static String queue(String itemCode, long generation) {
        return StockKeys.counter(itemCode) + ":queue:" + generation;
    }
}
