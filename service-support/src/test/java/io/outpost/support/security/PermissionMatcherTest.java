package io.outpost.support.security;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.outpost.model.Permissions;

class PermissionMatcherTest {

    @Test
    void exactPermissionGrantsItself() {
        assertTrue(PermissionMatcher.grants("sandbox:config:view", "sandbox:config:view"));
        assertFalse(PermissionMatcher.grants("sandbox:config:view", "sandbox:config:edit"));
    }

    @Test
    void wildcardGrantsEveryPermissionBelowItsPrefix() {
        assertTrue(PermissionMatcher.grants("notification:player:*", "notification:player:read"));
        assertTrue(PermissionMatcher.grants("notification:player:*", "notification:player:self:read"));
        assertTrue(PermissionMatcher.grants("notification:*", "notification:player:write"));
        assertTrue(PermissionMatcher.grants("*", "sandbox:config:edit"));
    }

    @Test
    void wildcardDoesNotGrantItsOwnPrefixOrNeighbours() {
        assertFalse(PermissionMatcher.grants("notification:player:*", "notification:player"));
        assertFalse(PermissionMatcher.grants("notification:player:*", "notification:playerx:read"));
        assertFalse(PermissionMatcher.grants("notification:player:self:*", "notification:player:read"));
        assertFalse(PermissionMatcher.grants("sandbox:*", "notification:player:read"));
    }

    @Test
    void wildcardIsOnlyAWholeLastSegment() {
        assertFalse(PermissionMatcher.grants("notification:play*", "notification:player:read"));
        assertFalse(PermissionMatcher.grants("notification:*:read", "notification:player:read"));
    }

    @Test
    void noWildcardGrantsAuthServicePermissions() {
        assertFalse(PermissionMatcher.grants("*", Permissions.AUTH_CLIENTS_ADMIN));
        assertFalse(PermissionMatcher.grants("auth:*", Permissions.AUTH_CLIENTS_ADMIN));
        assertFalse(PermissionMatcher.grants("auth:clients:*", Permissions.AUTH_CLIENTS_ADMIN));
        assertFalse(PermissionMatcher.grantsAny(List.of("*", "auth:*"), List.of(Permissions.AUTH_CLIENTS_ADMIN)));
        assertTrue(PermissionMatcher.grants(Permissions.AUTH_CLIENTS_ADMIN, Permissions.AUTH_CLIENTS_ADMIN));
        assertTrue(PermissionMatcher.grants("*", Permissions.NOTIFICATION_PLAYER_READ));
    }

    @Test
    void anyOfIsSatisfiedByOneHeldPermission() {
        assertTrue(PermissionMatcher.grantsAny(List.of("other:thing", "notification:player:self:*"),
                Permissions.LONG_POLL));
        assertFalse(PermissionMatcher.grantsAny(List.of("notification:player:write"), Permissions.LONG_POLL));
        assertFalse(PermissionMatcher.grantsAny(List.of(), Permissions.SANDBOX_HISTORY));
    }
}
