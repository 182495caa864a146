-- The database, not Redis, is the authority on an Idempotency-Key: one order per item and key, whatever Redis
-- remembers. After Redis lost its first answers (a restart without persistence, a failover, the key's TTL), a
-- retry with the same key fails on this index instead of placing a second order, and is answered from the
-- first order's row. Orders without a key (NULL) are not constrained. After V4, so that keys differing only in
-- case or trailing spaces are two keys, as Redis has them. Runs on MySQL 8.x and MariaDB 10.6+; a database that
-- already holds two orders of one item with the very same key must have them settled by hand before it migrates.
-- Builds an index over every order: run it with the migration's connection, which has no socket timeout.

ALTER TABLE purchase_order
    ADD UNIQUE KEY uk_purchase_order_idempotency (item_code, idempotency_key);
