-- One row per player ever notified: the last sequence number handed out to that player. Ingest bumps it under
-- the row lock, so the transactions of one player commit in sequence order and a reader that resumes "after
-- sequence N" never misses a row that commits late. Kept when the player's notifications are purged, so a
-- sequence number is never reused.
CREATE TABLE notification.player_cursor (
    player_uuid uuid   PRIMARY KEY,
    last_seq    bigint NOT NULL
);

CREATE TABLE notification.notification (
    player_uuid     uuid         NOT NULL,
    seq             bigint       NOT NULL,
    notification_id varchar(128) NOT NULL,
    message         text         NOT NULL,
    svc_url         text,
    -- json, not jsonb: custom_data is handed back exactly as the producer wrote it (key order, number forms)
    custom_data     json,
    etag            text,
    created         timestamptz  NOT NULL,
    PRIMARY KEY (player_uuid, seq),
    -- a repeated id is ingested once (re-delivery, or a producer sending twice)
    CONSTRAINT notification_player_id_unique UNIQUE (player_uuid, notification_id)
);

-- the retention purge deletes by age
CREATE INDEX notification_created ON notification.notification (created);
