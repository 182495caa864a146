-- The DB-lock baseline (POST /order/stock/limit/db-lock): an item's units are counted either by the Redis
-- gate or, for comparison, in its own stock_item row, which that endpoint locks with SELECT ... FOR UPDATE.
-- Runs on MySQL 8.x and MariaDB 10.6+; existing items stay Redis items.

ALTER TABLE stock_item
    ADD COLUMN gate         VARCHAR(8) CHARACTER SET ascii NOT NULL DEFAULT 'redis',
    -- units left of a 'db-lock' item, decremented in each order's transaction; NULL for a 'redis' item
    ADD COLUMN db_remaining BIGINT NULL;
