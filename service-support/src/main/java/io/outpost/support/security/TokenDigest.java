package io.outpost.support.security;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * What the verified-token cache keys a token by: its SHA-256, 48 bytes on the heap instead of the token's ≈ 700.
 * Every held long poll has its token in the cache, so this is memory per held poll. Collision resistance keeps
 * it exact: two tokens share an entry only if they are the same token. UTF-8 encodes every string differently.
 */
record TokenDigest(long a, long b, long c, long d) {

    private static final ThreadLocal<Hasher> HASHER = ThreadLocal.withInitial(Hasher::new);

    /**
     * The SHA-256 of the token's UTF-8. Every request with a token looks it up, so a token of ASCII characters (any
     * well-formed one) is hashed through a per-thread buffer, without copying it to a byte array first: the key is
     * the only object made.
     */
    static TokenDigest of(String compact) {
        Hasher hasher = HASHER.get();
        MessageDigest sha = hasher.sha;
        byte[] chunk = hasher.chunk;
        int length = compact.length();
        for (int i = 0; i < length; i++) {
            if (compact.charAt(i) >= 0x80) { // not ASCII: its UTF-8 is not its chars
                sha.update(compact.getBytes(StandardCharsets.UTF_8));
                return hasher.digest();
            }
        }
        for (int from = 0; from < length; from += chunk.length) {
            int count = Math.min(chunk.length, length - from);
            for (int k = 0; k < count; k++) {
                chunk[k] = (byte) compact.charAt(from + k); // an ASCII char is its UTF-8 byte
            }
            sha.update(chunk, 0, count);
        }
        return hasher.digest();
    }

    /** One thread's SHA-256 and the buffers it reuses. */
    private static final class Hasher {
        private final MessageDigest sha;
        private final byte[] chunk = new byte[1024];
        private final byte[] hash = new byte[32];
        /** The hash read as four big-endian longs, without a buffer per call. */
        private final ByteBuffer words = ByteBuffer.wrap(hash);

        Hasher() {
            try {
                sha = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JDK has SHA-256", e);
            }
        }

        /** Finishes the digest of what was given (resetting it) into a key. */
        TokenDigest digest() {
            try {
                sha.digest(hash, 0, hash.length);
            } catch (java.security.DigestException e) {
                throw new IllegalStateException("SHA-256 fits in 32 bytes", e);
            }
            return new TokenDigest(words.getLong(0), words.getLong(8), words.getLong(16), words.getLong(24));
        }
    }
}
