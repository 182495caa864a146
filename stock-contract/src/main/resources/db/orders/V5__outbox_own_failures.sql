-- A row's own failures, apart from its claims. attempts counts every claim (outages and leases that ran out
-- included, so it shows how long a row waited); failures counts only the sends the broker or the producer
-- refused for the record itself (too large, not authorised, ...), and only those count towards DEAD, so a
-- long broker outage does not leave rows one failure away from DEAD. A requeue of DEAD rows sets it back to 0.
-- Runs on MySQL 8.x and MariaDB 10.6+ (an instant ADD COLUMN on both); existing rows start at 0.

ALTER TABLE outbox_event
    ADD COLUMN failures INT NOT NULL DEFAULT 0;
