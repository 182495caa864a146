package io.flashstock.order.placement.commit;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database as {@link GroupCommit} sees it: writes a batch all or nothing, like the database. A batch
 * holding an order it was told to reject throws that order's failure and writes nothing; fenced orders are left
 * out. It can hold its first transaction open, so that orders queue behind it. Orders are named by their code,
 * or, for a caller that does not choose the codes ({@code PlaceOrder} makes its own), every order at once.
 */
public final class FakeBatchWriter implements BatchWriter {

    private final List<List<String>> committed = new CopyOnWriteArrayList<>();
    private final List<PendingOrder> written = new CopyOnWriteArrayList<>();
    private final Set<String> fenced = ConcurrentHashMap.newKeySet();
    private final Map<String, Function<String, RuntimeException>> rejected = new ConcurrentHashMap<>();
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile Function<String, RuntimeException> rejectEvery;
    private volatile boolean fenceEvery;
    private volatile boolean holdFirst;
    private volatile int attempts;

    @Override
    public Set<String> write(List<PendingOrder> batch) {
        attempts++;
        if (holdFirst) {
            holdFirst = false;
            held.countDown();
            try {
                released.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        var codes = batch.stream().map(PendingOrder::orderCode).toList();
        for (String code : codes) {
            var failure = rejected.getOrDefault(code, rejectEvery);
            if (failure != null) {
                throw failure.apply(code);
            }
        }
        var writtenCodes = new ArrayList<String>();
        var refused = new HashSet<String>();
        for (PendingOrder pending : batch) {
            String code = pending.orderCode();
            if (fenceEvery || fenced.contains(code)) {
                refused.add(code);
            } else {
                writtenCodes.add(code);
                written.add(pending);
            }
        }
        if (!writtenCodes.isEmpty()) {
            committed.add(List.copyOf(writtenCodes));
        }
        return refused;
    }

    public void holdFirst() {
        holdFirst = true;
    }

    public void awaitHeld() throws InterruptedException {
        assertThat(held.await(5, TimeUnit.SECONDS)).as("first transaction begun").isTrue();
    }

    public void release() {
        released.countDown();
    }

    public void fence(String code) {
        fenced.add(code);
    }

    /** Fences out every order from now on, as after a rebuild of their item's counter. */
    public void fenceEvery() {
        fenceEvery = true;
    }

    public void reject(String code, Function<String, RuntimeException> failure) {
        rejected.put(code, failure);
    }

    /** Fails every batch from now on with {@code failure} of its first order's code. */
    public void rejectEvery(Function<String, RuntimeException> failure) {
        rejectEvery = failure;
    }

    /** The codes of each committed transaction, in commit order. */
    public List<List<String>> committed() {
        return committed;
    }

    /** Every order committed, with the status of its outbox row. */
    public List<PendingOrder> written() {
        return written;
    }

    public int attempts() {
        return attempts;
    }
}
