package io.outpost.notification.store;

/**
 * What the store knows about a player's position: the sequence of the notification a cursor names (null when no
 * retained notification of the player has that id) and the last sequence handed out to the player (0 when none).
 */
public record CursorLookup(Long namedSeq, long lastSeq) {
}
