package io.outpost.auth.rest;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import io.outpost.auth.service.ClientCredentials;

/**
 * Reads {@code Authorization: Basic base64(client_id:client_secret)} (RFC 6749 §2.3.1, RFC 7617). Standard and
 * URL-safe base64 are both accepted, padded or not (a known game SDK sends URL-safe).
 */
final class BasicCredentials {

    private static final String SCHEME = "basic ";

    private BasicCredentials() {
    }

    /** The credentials, or null when the header is absent or unreadable. */
    static ClientCredentials parse(String header) {
        if (header == null) {
            return null;
        }
        String value = header.strip();
        if (value.length() <= SCHEME.length() || !value.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return null;
        }
        String encoded = value.substring(SCHEME.length()).strip().replace('+', '-').replace('/', '_');
        String decoded;
        try {
            byte[] bytes = Base64.getUrlDecoder().decode(encoded);
            decoded = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (IllegalArgumentException | CharacterCodingException e) {
            return null;
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) {
            return null;
        }
        return new ClientCredentials(decoded.substring(0, colon), decoded.substring(colon + 1));
    }
}
