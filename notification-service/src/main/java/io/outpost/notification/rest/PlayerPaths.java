package io.outpost.notification.rest;

import java.util.List;
import java.util.UUID;

import io.outpost.model.Permissions;
import io.outpost.model.error.AuthErrorCode;
import io.outpost.support.http.InputParser;
import io.outpost.support.security.AuthRefusedException;
import io.outpost.support.security.PermissionMatcher;
import io.outpost.support.security.VerifiedToken;

/**
 * The {@code {player}} of every path under {@code /notification/v1/player/}: {@code me}, the token's own player, or
 * a player's uuid. A token reaches its own player with the {@code self} permissions; another player needs the
 * permission without {@code self} (docs/notifications.md, "The API"). Called once the endpoint's guard has seen that
 * the token holds one of the two, so what is left to check is whose player it is.
 */
final class PlayerPaths {

    /** The path segment naming the token's own player, as in the vendor's API. */
    static final String ME = "me";
    static final String PARAMETER = "player_uuid";

    /** What reads any player's notifications, and what its own. */
    static final String[] READ = { Permissions.NOTIFICATION_PLAYER_ALL, Permissions.NOTIFICATION_PLAYER_READ,
            Permissions.NOTIFICATION_PLAYER_SELF_ALL, Permissions.NOTIFICATION_PLAYER_SELF_READ };
    /** What writes to any player, and what to its own. */
    static final String[] WRITE = { Permissions.NOTIFICATION_PLAYER_WRITE, Permissions.NOTIFICATION_PLAYER_SELF_WRITE };

    private PlayerPaths() {
    }

    /** The player {@code segment} names for reading; null with a 422 fault in {@code in} when it names none. */
    static UUID forReading(VerifiedToken token, String segment, InputParser in) {
        return player(token, segment, in, Permissions.NOTIFICATION_PLAYER_READ);
    }

    /** The player {@code segment} names for writing; null with a 422 fault in {@code in} when it names none. */
    static UUID forWriting(VerifiedToken token, String segment, InputParser in) {
        return player(token, segment, in, Permissions.NOTIFICATION_PLAYER_WRITE);
    }

    /**
     * {@code me}: the token's player (403 {@code invalid_token_claims} when it has none); a uuid: that player, when
     * it is the token's own or the token grants {@code anyPlayer} (403 {@code insufficient_permissions} otherwise).
     */
    private static UUID player(VerifiedToken token, String segment, InputParser in, String anyPlayer) {
        if (ME.equals(segment)) {
            return token.player().orElseThrow(() -> new AuthRefusedException(AuthErrorCode.INVALID_TOKEN_CLAIMS,
                    "The token is not bound to a player"));
        }
        UUID player = in.pathUuid(PARAMETER, segment);
        if (player == null) {
            return null; // no player at all: the path's 422
        }
        boolean anyone = PermissionMatcher.grantsAny(token.permissions(), List.of(anyPlayer));
        if (!anyone && !token.player().map(player::equals).orElse(false)) {
            throw new AuthRefusedException(AuthErrorCode.INSUFFICIENT_PERMISSIONS,
                    "The token's self permissions reach only its own player; another needs " + anyPlayer);
        }
        return player;
    }
}
