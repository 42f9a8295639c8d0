package io.outpost.support.security;

import java.util.Collection;

/**
 * Decides whether a token's {@code permissions} grant a required permission (DESIGN §3): an exact entry, or
 * a wildcard entry {@code a:b:*} that grants every permission below {@code a:b:} (e.g. {@code a:b:read} and
 * {@code a:b:self:read}). A lone {@code *} grants everything.
 */
public final class PermissionMatcher {

    private PermissionMatcher() {
    }

    public static boolean grants(String held, String required) {
        if (held.equals(required) || held.equals("*")) {
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
