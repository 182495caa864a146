package io.flashstock.order.stock;

/**
 * An item as the database and Redis see it. {@code expectedRemaining} = baseline − orders of the current
 * generation; {@code drift} = expected − the gate's counter: the Redis counter for a {@link Gate#REDIS} item
 * (positive: Redis is lower than the orders say, e.g. after a crash between the gate and the commit),
 * {@code dbRemaining} for a {@link Gate#DB_LOCK} item (always 0: counter and orders commit together). Null
 * where a side has nothing.
 *
 * @param itemCode the item
 * @param gate which gate sells the item
 * @param generation the current generation in the database
 * @param baseline the stock the last reset set
 * @param perUserLimit the per-user limit, null for none
 * @param redisRemaining the Redis counter (none for a db-lock item)
 * @param redisGeneration the generation Redis holds
 * @param dbRemaining the units left of a db-lock item, in its {@code stock_item} row
 * @param ordersCount orders of the current generation
 * @param ordersQuantity units those orders took
 * @param expectedRemaining baseline − ordersQuantity
 * @param drift expectedRemaining − the gate's counter (− the units unused tokens hold, for a token item)
 * @param tokenHeldUnits for a token item: the units its unused tokens hold, in no order yet; null otherwise
 */
record ItemView(String itemCode, Gate gate, Long generation, Long baseline, Integer perUserLimit,
                Long redisRemaining, Long redisGeneration, Long dbRemaining, long ordersCount, long ordersQuantity,
                Long expectedRemaining, Long drift, Long tokenHeldUnits) {
}
