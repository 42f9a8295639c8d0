package io.outpost.notification.service;

import java.time.Duration;
import java.util.UUID;

/**
 * One long poll, parsed (spec §4.2, DESIGN §4).
 *
 * @param excludeBefore a notification id or a cursor from an earlier answer; null to start by {@code earliest}
 * @param earliest      {@code offset_reset_strategy=earliest}: start from the oldest retained notification when
 *                      {@code excludeBefore} is absent or unknown (otherwise from now)
 * @param own           the caller's token is bound to {@code player} (its game client); otherwise another reader's
 *                      poll, held within a limit of its own
 */
public record PollRequest(UUID player, String excludeBefore, boolean earliest, int maxPageSize, Duration deadline,
        boolean own) {
}
