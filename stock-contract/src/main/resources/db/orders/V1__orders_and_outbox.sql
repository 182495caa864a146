-- The orders database: owned by order-api; outbox_event is shared with outbox-relay.
-- Runs on MySQL 8.x and MariaDB 10.6+ (DATETIME(6), ascii columns, no JSON type, no CHECK reliance).

CREATE TABLE stock_item (
    item_code       VARCHAR(64) CHARACTER SET ascii NOT NULL,
    generation      BIGINT      NOT NULL,
    baseline        BIGINT      NOT NULL,
    per_user_limit  INT         NULL,
    reset_event_id  CHAR(36) CHARACTER SET ascii NOT NULL,
    reset_at        DATETIME(6) NOT NULL,
    PRIMARY KEY (item_code)
) ENGINE = InnoDB;

CREATE TABLE purchase_order (
    order_code       CHAR(36) CHARACTER SET ascii NOT NULL,
    event_id         CHAR(36) CHARACTER SET ascii NOT NULL,
    item_code        VARCHAR(64) CHARACTER SET ascii NOT NULL,
    generation       BIGINT       NOT NULL,
    user_id          VARCHAR(64)  NOT NULL,
    quantity         INT          NOT NULL,
    remaining        BIGINT       NOT NULL,
    idempotency_key  VARCHAR(128) NULL,
    created_at       DATETIME(6)  NOT NULL,
    PRIMARY KEY (order_code),
    UNIQUE KEY uk_purchase_order_event (event_id),
    KEY ix_purchase_order_item (item_code, generation)
) ENGINE = InnoDB;

CREATE TABLE outbox_event (
    id             BIGINT       NOT NULL AUTO_INCREMENT,
    event_id       CHAR(36) CHARACTER SET ascii NOT NULL,
    aggregate_key  VARCHAR(64) CHARACTER SET ascii NOT NULL,
    event_type     VARCHAR(32) CHARACTER SET ascii NOT NULL,
    payload        TEXT         NOT NULL,
    status         VARCHAR(8) CHARACTER SET ascii NOT NULL,
    attempts       INT          NOT NULL DEFAULT 0,
    available_at   DATETIME(6)  NOT NULL,
    claimed_by     VARCHAR(64)  NULL,
    created_at     DATETIME(6)  NOT NULL,
    sent_at        DATETIME(6)  NULL,
    last_error     VARCHAR(512) NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_outbox_event_id (event_id),
    -- the relay's claim: WHERE status = 'NEW' AND available_at <= ? ORDER BY id
    KEY ix_outbox_claim (status, id),
    -- retention: WHERE status = 'SENT' AND sent_at < ?
    KEY ix_outbox_sent (status, sent_at)
) ENGINE = InnoDB;
