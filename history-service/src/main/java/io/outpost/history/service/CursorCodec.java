package io.outpost.history.service;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import jakarta.enterprise.context.ApplicationScoped;

import io.outpost.history.store.CursorSecretRepository;
import io.smallrye.mutiny.Uni;

/**
 * Paging cursors: a store position sealed with an HMAC over that position and the listing it belongs to
 * (endpoint, sandbox, filters, sort order). A cursor altered in any way, or presented to another listing, does
 * not verify. Layout: base64url(8-byte position ‖ 16-byte truncated HMAC-SHA256), 32 characters.
 */
@ApplicationScoped
public class CursorCodec {

    private static final String ALGORITHM = "HmacSHA256";
    private static final int MAC_BYTES = 16;
    private static final int CURSOR_BYTES = Long.BYTES + MAC_BYTES;

    private final CursorSecretRepository secrets;
    private volatile SecretKeySpec key;

    public CursorCodec(CursorSecretRepository secrets) {
        this.secrets = secrets;
    }

    /** Completes once the signing key is known (read from the database on first use, then kept). */
    public Uni<Void> ready() {
        if (key != null) {
            return Uni.createFrom().voidItem();
        }
        return secrets.secret().invoke(secret -> key = new SecretKeySpec(secret, ALGORITHM)).replaceWithVoid();
    }

    public String encode(long position, String listing) {
        ByteBuffer buffer = ByteBuffer.allocate(CURSOR_BYTES).putLong(position).put(mac(position, listing));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(buffer.array());
    }

    /** The position sealed in {@code cursor} for {@code listing}; null when it is not one of ours for it. */
    public Long decode(String cursor, String listing) {
        byte[] raw;
        try {
            raw = Base64.getUrlDecoder().decode(cursor);
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (raw.length != CURSOR_BYTES) {
            return null;
        }
        long position = ByteBuffer.wrap(raw).getLong();
        byte[] presented = Arrays.copyOfRange(raw, Long.BYTES, CURSOR_BYTES);
        // constant time, so the expected tag cannot be guessed byte by byte from response times
        return MessageDigest.isEqual(presented, mac(position, listing)) ? position : null;
    }

    private byte[] mac(long position, String listing) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            mac.update(ByteBuffer.allocate(Long.BYTES).putLong(position).array());
            mac.update(listing.getBytes(StandardCharsets.UTF_8));
            return Arrays.copyOf(mac.doFinal(), MAC_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 unavailable", e);
        }
    }
}
