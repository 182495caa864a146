-- The stock database: owned by stock-consumer.
-- Runs on MySQL 8.x and MariaDB 10.6+ (DATETIME(6), ascii columns, no JSON type, no CHECK reliance).
-- Every DATETIME column holds UTC: the application writes LocalDateTime values converted from Instants at UTC.

-- One row per item: the baseline of its current generation and what was deducted from it since.
CREATE TABLE stock_level (
    item_code        VARCHAR(64) CHARACTER SET ascii NOT NULL,
    generation       BIGINT      NOT NULL,
    baseline         BIGINT      NOT NULL,
    quantity         BIGINT      NOT NULL,
    -- deductions applied since the reset that set the baseline
    events_applied   BIGINT      NOT NULL,
    reset_event_id   CHAR(36) CHARACTER SET ascii NOT NULL,
    reset_at         DATETIME(6) NOT NULL,
    last_applied_at  DATETIME(6) NOT NULL,
    PRIMARY KEY (item_code)
) ENGINE = InnoDB;

-- The dedupe table: a row per consumed event, written in the same transaction as its effect.
CREATE TABLE processed_event (
    event_id      CHAR(36) CHARACTER SET ascii NOT NULL,
    item_code     VARCHAR(64) CHARACTER SET ascii NOT NULL,
    processed_at  DATETIME(6) NOT NULL,
    PRIMARY KEY (event_id),
    -- retention: WHERE processed_at < ? ORDER BY processed_at LIMIT ?
    KEY ix_processed_event_at (processed_at)
) ENGINE = InnoDB;

-- Events that were consumed but not applied, kept for the reconciliation report.
CREATE TABLE stock_anomaly (
    id                BIGINT      NOT NULL AUTO_INCREMENT,
    event_id          CHAR(36) CHARACTER SET ascii NOT NULL,
    item_code         VARCHAR(64) CHARACTER SET ascii NOT NULL,
    -- INSUFFICIENT_STOCK, UNKNOWN_GENERATION or STALE
    kind              VARCHAR(32) CHARACTER SET ascii NOT NULL,
    event_type        VARCHAR(32) CHARACTER SET ascii NOT NULL,
    event_generation  BIGINT      NOT NULL,
    quantity          BIGINT      NOT NULL,
    detail            VARCHAR(255) NOT NULL,
    occurred_at       DATETIME(6) NOT NULL,
    recorded_at       DATETIME(6) NOT NULL,
    PRIMARY KEY (id),
    KEY ix_stock_anomaly_item (item_code, id),
    KEY ix_stock_anomaly_event (event_id)
) ENGINE = InnoDB;
