package io.outpost.support.security;

import java.util.Collection;

/**
 * Decides whether a token's {@code permissions} grant a required permission (DESIGN §3): an exact entry, or
 * a wildcard entry {@code a:b:*} that grants every permission below {@code a:b:} (e.g. {@code a:b:read} and
 * {@code a:b:self:read}); a lone {@code *} grants everything — except auth-service's own permissions
 * ({@code auth:…}, such as {@code auth:clients:admin}), which only an exact entry grants, so that a broad grant
 * made for convenience never hands out client administration.
 */
public final class PermissionMatcher {

    /** Permissions no wildcard grants. */
    static final String EXPLICIT_ONLY_PREFIX = "auth:";

    private PermissionMatcher() {
    }

    public static boolean grants(String held, String required) {
        if (held.equals(required)) {
            return true;
        }
        if (required.startsWith(EXPLICIT_ONLY_PREFIX)) {
            return false;
        }
        if (held.equals("*")) {
            return true;
        }
        if (held.endsWith(":*")) {
            String prefix = held.substring(0, held.length() - 1);
            return required.length() > prefix.length() && required.startsWith(prefix);
        }
        return false;
    }

    /** True when any held permission grants any one of {@code anyOf}. */
    public static boolean grantsAny(Collection<String> held, Collection<String> anyOf) {
        for (String required : anyOf) {
            for (String h : held) {
                if (grants(h, required)) {
                    return true;
                }
            }
        }
        return false;
    }
}
