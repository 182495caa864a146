package io.flashstock.order.stock;

/**
 * An item as the database and Redis see it. {@code expectedRemaining} = baseline − orders of the current
 * generation; {@code drift} = expected − Redis (positive: Redis is lower than the orders say, e.g. after a
 * crash between the gate and the commit). Null where a side has nothing.
 *
 * @param itemCode the item
 * @param generation the current generation in the database
 * @param baseline the stock the last reset set
 * @param perUserLimit the per-user limit, null for none
 * @param redisRemaining the Redis counter
 * @param redisGeneration the generation Redis holds
 * @param ordersCount orders of the current generation
 * @param ordersQuantity units those orders took
 * @param expectedRemaining baseline − ordersQuantity
 * @param drift expectedRemaining − redisRemaining
 */
record ItemView(String itemCode, Long generation, Long baseline, Integer perUserLimit, Long redisRemaining,
                Long redisGeneration, long ordersCount, long ordersQuantity, Long expectedRemaining, Long drift) {
}
