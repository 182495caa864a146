package io.flashstock.warmup;

/**
 * What the warmed-up service provides so that warm-up orders run the real path yet leave no trace.
 */
public interface WarmupFixture {

    /** Makes {@code itemCode} orderable with {@code units} in stock, touching no real item. */
    void prepare(String itemCode, long units);

    /**
     * Removes every trace of the warm-up's orders of {@code itemCode}: order rows, outbox rows and Redis keys.
     *
     * @return how many orders were removed
     */
    long cleanUp(String itemCode);
}
