package io.outpost.support.security;

import java.util.Arrays;

import io.outpost.model.error.AuthErrorCode;

/**
 * The shape of a compact JWS (RFC 7515 §7.1): three parts of unpadded base64url, the header and the payload not
 * empty, each in its one canonical spelling (RFC 4648 §3.5: the bits of the last character that no byte uses are
 * zero, and no length that no bytes encode to). jose4j decodes leniently, so without this one signature could be
 * written several ways — the same bytes, another token string — and a token be accepted in a spelling its issuer
 * never wrote. One pass over the characters, nothing allocated: it runs on every token not yet remembered.
 */
final class CompactJws {

    /** The value of each base64url character, -1 for any other ASCII character. */
    private static final byte[] SEXTET = new byte[128];

    static {
        Arrays.fill(SEXTET, (byte) -1);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        for (int i = 0; i < alphabet.length(); i++) {
            SEXTET[alphabet.charAt(i)] = (byte) i;
        }
    }

    private CompactJws() {
    }

    /**
     * Null for a well-formed compact JWS; {@link AuthErrorCode#NOT_JWT} when it is not three parts of base64url
     * characters, {@link AuthErrorCode#TOKEN_FORMAT} when it is but a part is not spelled canonically.
     */
    static AuthErrorCode fault(String compact) {
        int parts = 0;
        int start = 0;
        boolean canonical = true;
        for (int i = 0, n = compact.length(); i <= n; i++) {
            if (i < n) {
                char c = compact.charAt(i);
                if (c != '.') {
                    if (c >= SEXTET.length || SEXTET[c] < 0) {
                        return AuthErrorCode.NOT_JWT;
                    }
                    continue;
                }
            }
            int length = i - start;
            if (++parts > 3 || length == 0 && parts < 3) {
                return AuthErrorCode.NOT_JWT;
            }
            canonical &= length == 0 || canonicalEnd(compact.charAt(i - 1), length);
            start = i + 1;
        }
        return parts < 3 ? AuthErrorCode.NOT_JWT : canonical ? null : AuthErrorCode.TOKEN_FORMAT;
    }

    /**
     * Whether a part of {@code length} characters ending in {@code last} is canonical: 4k characters hold 3k bytes,
     * 4k+2 and 4k+3 one and two more with 4 and 2 bits unused (which must be zero); 4k+1 holds no whole byte.
     */
    private static boolean canonicalEnd(char last, int length) {
        return switch (length % 4) {
            case 0 -> true;
            case 2 -> (SEXTET[last] & 0b1111) == 0;
            case 3 -> (SEXTET[last] & 0b11) == 0;
            default -> false;
        };
    }
}
