package io.flashstock.perf.jpa;

import java.util.List;

/** One way of writing a group-committed batch: every order's row and its outbox row, in one transaction. */
interface OrderWrites {

    /** The name in the CSV. */
    String variant();

    void write(List<BenchOrder> batch);
}
