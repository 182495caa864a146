-- Item codes, user ids and Idempotency-Keys compare exactly as the client sent them, as Redis keys do. Under the
-- default collations (utf8mb4_general_ci on MariaDB, utf8mb4_0900_ai_ci on MySQL 8, ascii_general_ci) 'Bob',
-- 'bob' and, on MariaDB, 'bob ' were one user for the DB-lock gate's per-user limit and for the per-user counts
-- a rebuild loads into Redis; 'Key-1' replayed 'key-1'; and an order for 'abc' locked, rebuilt or sold from
-- the row of 'ABC'.
-- user_id and idempotency_key become VARBINARY: the _bin collations of both engines still ignore trailing
-- spaces (PAD SPACE), and the NO PAD binary ones differ between them (utf8mb4_0900_bin, utf8mb4_nopad_bin).
-- They hold the UTF-8 bytes the driver sends, 64 characters of at most 4 bytes and 128 ASCII characters.
-- Item codes have no spaces (InputRules), so ascii_bin is exact for them. Runs on MySQL 8.x and MariaDB 10.6+;
-- no value changes, and no two existing rows can collide under a finer comparison. Copies purchase_order and
-- outbox_event whole (seconds per million rows): the migration's connection has no socket timeout.

ALTER TABLE stock_item
    MODIFY item_code VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL;

ALTER TABLE purchase_order
    MODIFY item_code       VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    MODIFY user_id         VARBINARY(256) NOT NULL,
    MODIFY idempotency_key VARBINARY(128) NULL;

ALTER TABLE outbox_event
    MODIFY aggregate_key VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL;
