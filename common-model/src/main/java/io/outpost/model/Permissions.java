package io.outpost.model;

import java.util.List;

/** Permission strings carried in a token's {@code permissions} claim (spec §5, DESIGN §3, §4). */
public final class Permissions {

    public static final String NOTIFICATION_PLAYER_ALL = "notification:player:*";
    public static final String NOTIFICATION_PLAYER_READ = "notification:player:read";
    public static final String NOTIFICATION_PLAYER_SELF_ALL = "notification:player:self:*";
    public static final String NOTIFICATION_PLAYER_SELF_READ = "notification:player:self:read";
    public static final String NOTIFICATION_PLAYER_WRITE = "notification:player:write";
    public static final String NOTIFICATION_PLAYER_SELF_WRITE = "notification:player:self:write";
    public static final String SANDBOX_CONFIG_VIEW = "sandbox:config:view";
    public static final String SANDBOX_CONFIG_EDIT = "sandbox:config:edit";
    /** Guards auth-service's client administration endpoints. */
    public static final String AUTH_CLIENTS_ADMIN = "auth:clients:admin";

    /** Spec §5: any one of these reads the caller's own notifications. */
    public static final List<String> LONG_POLL = List.of(NOTIFICATION_PLAYER_ALL, NOTIFICATION_PLAYER_READ,
            NOTIFICATION_PLAYER_SELF_ALL, NOTIFICATION_PLAYER_SELF_READ);
    /** Spec §5 (profile lists) and DESIGN §3 (roles): any one of these reads a sandbox's history. */
    public static final List<String> SANDBOX_HISTORY = List.of(SANDBOX_CONFIG_VIEW, SANDBOX_CONFIG_EDIT);

    private Permissions() {
    }
}
