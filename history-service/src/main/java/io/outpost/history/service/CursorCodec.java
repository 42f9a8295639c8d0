package io.outpost.history.service;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Base64;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import jakarta.enterprise.context.ApplicationScoped;

import io.outpost.history.store.CursorSecretRepository;
import io.smallrye.mutiny.Uni;

/**
 * Paging cursors: a store position encrypted and sealed with AES-256-GCM, the listing it belongs to (endpoint,
 * sandbox, filters, sort order) as its associated data. A cursor altered in any way, or presented to another
 * listing, does not decrypt; and it says nothing of the position (a global row id: how many transactions every
 * sandbox has stored, and how fast). Layout: base64url(12-byte nonce ‖ 8-byte encrypted position ‖ 16-byte tag),
 * 48 characters.
 *
 * <p>The nonce is synthetic: an HMAC of the position and the listing under a key of its own. So one position of one
 * listing always gives the same cursor (as the sealed cursor before did), and two different inputs never share a
 * nonce however many cursors are issued — a random nonce would make that only likely. Both keys are derived from
 * {@code history.cursor_secret} with HKDF-SHA256 (RFC 5869), each for its use.
 */
@ApplicationScoped
public class CursorCodec {

    private static final String HMAC = "HmacSHA256";
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BYTES = 16;
    private static final int CURSOR_BYTES = NONCE_BYTES + Long.BYTES + TAG_BYTES;

    private final CursorSecretRepository secrets;
    private volatile Keys keys;

    /** The key that encrypts positions and the key that makes their nonces. */
    private record Keys(SecretKeySpec cipher, SecretKeySpec nonce) {
    }

    public CursorCodec(CursorSecretRepository secrets) {
        this.secrets = secrets;
    }

    /** Completes once the keys are known (derived from the secret read from the database on first use, then kept). */
    public Uni<Void> ready() {
        if (keys != null) {
            return Uni.createFrom().voidItem();
        }
        return secrets.secret().invoke(secret -> keys = derive(secret)).replaceWithVoid();
    }

    private static Keys derive(byte[] secret) {
        byte[] prk = hmac(new SecretKeySpec(new byte[32], HMAC), secret); // HKDF-Extract, salt of zeros
        SecretKeySpec extracted = new SecretKeySpec(prk, HMAC);
        return new Keys(new SecretKeySpec(expand(extracted, "outpost history cursor aes-gcm"), "AES"),
                new SecretKeySpec(expand(extracted, "outpost history cursor nonce"), HMAC));
    }

    /** HKDF-Expand to 32 bytes: one block, T(1) = HMAC(PRK, info ‖ 0x01). */
    private static byte[] expand(SecretKeySpec prk, String info) {
        byte[] in = Arrays.copyOf(info.getBytes(StandardCharsets.US_ASCII), info.length() + 1);
        in[info.length()] = 1;
        return hmac(prk, in);
    }

    private static byte[] hmac(SecretKeySpec key, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(key);
            for (byte[] part : parts) {
                mac.update(part);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 unavailable", e);
        }
    }

    public String encode(long position, String listing) {
        Keys k = keys;
        byte[] plain = ByteBuffer.allocate(Long.BYTES).putLong(position).array();
        byte[] aad = listing.getBytes(StandardCharsets.UTF_8);
        byte[] nonce = Arrays.copyOf(hmac(k.nonce(), plain, aad), NONCE_BYTES);
        try {
            Cipher cipher = gcm(Cipher.ENCRYPT_MODE, k.cipher(), nonce, aad);
            ByteBuffer cursor = ByteBuffer.allocate(CURSOR_BYTES).put(nonce);
            cipher.doFinal(ByteBuffer.wrap(plain), cursor);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(cursor.array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM unavailable", e);
        }
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
        try {
            Cipher cipher = gcm(Cipher.DECRYPT_MODE, keys.cipher(), Arrays.copyOf(raw, NONCE_BYTES),
                    listing.getBytes(StandardCharsets.UTF_8));
            // the tag is checked (in constant time) before any byte of the position is released
            byte[] plain = cipher.doFinal(raw, NONCE_BYTES, raw.length - NONCE_BYTES);
            return ByteBuffer.wrap(plain).getLong();
        } catch (AEADBadTagException e) {
            return null;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM unavailable", e);
        }
    }

    private static Cipher gcm(int mode, SecretKeySpec key, byte[] nonce, byte[] aad) throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(mode, key, new GCMParameterSpec(TAG_BYTES * 8, nonce));
        cipher.updateAAD(aad);
        return cipher;
    }
}
