-- What players need beyond the vendor's API (docs/notifications.md): a notification may expire, may be deleted, and
-- each player has a read marker. Expired and deleted notifications are never delivered nor listed; their rows stay,
-- emptied of content by the purge, so that a cursor naming one still resumes right after it, until retention
-- removes them with the rest of the player's oldest notifications.
ALTER TABLE notification.notification
    ADD COLUMN expires_at timestamptz,
    ADD COLUMN deleted_at timestamptz,
    ADD COLUMN emptied    boolean NOT NULL DEFAULT false;
-- the purge finds the rows that may expire or were deleted and still hold their content
CREATE INDEX notification_to_empty ON notification.notification (expires_at)
    WHERE (expires_at IS NOT NULL OR deleted_at IS NOT NULL) AND NOT emptied;

-- One row per player that marked notifications read: every notification up to and including sequence seq is read.
CREATE TABLE notification.read_marker (
    player_uuid     uuid         PRIMARY KEY,
    seq             bigint       NOT NULL,
    notification_id varchar(128) NOT NULL,
    updated_at      timestamptz  NOT NULL DEFAULT now()
);
