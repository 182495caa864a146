-- Item codes compare exactly, as in the orders database (its V4) and in Redis: under ascii_general_ci 'Case-X'
-- and 'case-x', two items to order-api, shared one stock_level row here, so one's reset overwrote the other's
-- baseline and their deductions were summed. Item codes hold no spaces, so ascii_bin is exact. Runs on MySQL
-- 8.x and MariaDB 10.6+; no value changes, and no two existing rows can collide under a finer comparison.

ALTER TABLE stock_level
    MODIFY item_code VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL;

ALTER TABLE processed_event
    MODIFY item_code VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL;

ALTER TABLE stock_anomaly
    MODIFY item_code VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL;
