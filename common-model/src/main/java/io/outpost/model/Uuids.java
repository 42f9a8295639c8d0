package io.outpost.model;

import java.util.UUID;

/**
 * Reads uuids in their canonical spelling (8-4-4-4-12 hex digits, either case) without a regular expression and
 * without allocating anything but the {@link UUID}: ingest and the request path parse several per record or
 * request. {@link UUID#fromString} alone is not that check: it also takes other spellings ({@code 1-2-3-4-5},
 * signs, non-ASCII digits).
 */
public final class Uuids {

    private static final int LENGTH = 36;

    private Uuids() {
    }

    /**
     * The uuid {@code text} spells in the canonical form: 36 characters, dashes at 8, 13, 18 and 23, ASCII hex
     * digits ({@code 0-9a-fA-F}) everywhere else; null for anything else, and for null.
     */
    public static UUID parse(String text) {
        if (text == null || text.length() != LENGTH || text.charAt(8) != '-' || text.charAt(13) != '-'
                || text.charAt(18) != '-' || text.charAt(23) != '-') {
            return null;
        }
        long msb = 0;
        long lsb = 0;
        for (int i = 0; i < LENGTH; i++) {
            if (i == 8 || i == 13 || i == 18 || i == 23) {
                continue;
            }
            int digit = hex(text.charAt(i));
            if (digit < 0) {
                return null;
            }
            if (i < 18) {
                msb = msb << 4 | digit;
            } else {
                lsb = lsb << 4 | digit;
            }
        }
        return new UUID(msb, lsb);
    }

    /**
     * Exactly {@link UUID#fromString}: the same uuid for what it accepts, the same exception for what it refuses;
     * the canonical form, what validated input always is, is read by {@link #parse}.
     */
    public static UUID fromString(String text) {
        UUID parsed = parse(text);
        return parsed != null ? parsed : UUID.fromString(text);
    }

    /** True when {@code text} is the canonical form in lower case: what {@link UUID#toString} writes. */
    public static boolean isLowerCanonical(String text) {
        if (text == null || text.length() != LENGTH) {
            return false;
        }
        for (int i = 0; i < LENGTH; i++) {
            char c = text.charAt(i);
            boolean dash = i == 8 || i == 13 || i == 18 || i == 23;
            if (dash ? c != '-' : !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }
}
