-- The fence between a rebuild of an item's Redis counter (reset, reload) and the orders taken from the counter
-- before it. Every load of the counter raises load_epoch and hands the new value to Redis; an order's
-- transaction reads its item's row with a shared lock and writes only if the epoch is the one its stock was
-- taken under. The raise takes the row's exclusive lock, so it waits for every order transaction still
-- holding the old epoch, and none of the old epoch can commit after it. Runs on MySQL 8.x and MariaDB 10.6+.
-- Existing rows start at 0: their Redis counters carry no epoch yet and are rebuilt on first use.

ALTER TABLE stock_item
    ADD COLUMN load_epoch BIGINT NOT NULL DEFAULT 0;
