package io.outpost.auth.service;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

import jakarta.inject.Singleton;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.auth.config.AuthConfig;
import io.outpost.model.error.Constraints;

/**
 * Client secrets: generated, hashed at rest with a slow KDF (PBKDF2-HMAC-SHA512, salted, iterations stored in the
 * hash), and fingerprinted for the hot path with HMAC-SHA256 under a key that lives only in this process's memory.
 * A fingerprint proves nothing by itself: it is only compared with one taken after the slow check succeeded.
 *
 * <p>PBKDF2 uses the secret as the HMAC key, and HMAC pads a key shorter than its block (128 bytes for SHA-512)
 * with zero bytes: {@code "s"} and {@code "s\0"} derive the same hash. So a secret holding U+0000 is never hashed
 * nor checked ({@link #acceptable}); nor is one holding half a surrogate pair, which the KDF's UTF-8 encoding would
 * turn into {@code '?'}. A key longer than the block is first hashed with SHA-512, so a secret over 128 bytes and
 * its 64-byte digest collide too; presenting the digest needs the secret itself, and generated secrets are 43 bytes.
 *
 * <p>A secret replaced with a grace period is hashed with the salt and iterations of the one it replaces
 * ({@link #hashBeside}), so that one KDF run checks a presented secret against both ({@link #matching}): a client
 * within its grace costs what any other does, and a refusal does not tell that a rotation is under way.
 */
@Singleton
public class SecretHasher {

    private static final String PREFIX = "$pbkdf2-sha512$i=";
    private static final int SALT_BYTES = 16;
    private static final int HASH_BITS = 512;
    private static final int SECRET_BYTES = 32;
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getUrlDecoder();

    private final SecureRandom random = new SecureRandom();
    private final int iterations;
    private final SecretKeySpec fingerprintKey;
    private final ThreadLocal<Mac> macs;
    private final Counter kdfRuns;
    /** Hash of a secret nobody knows: unknown clients are checked against it, so they cost what a wrong secret does. */
    private final String dummyHash;

    public SecretHasher(AuthConfig config, MeterRegistry registry) {
        this.iterations = config.secrets().pbkdf2Iterations();
        byte[] key = new byte[32];
        random.nextBytes(key);
        this.fingerprintKey = new SecretKeySpec(key, "HmacSHA256");
        this.macs = ThreadLocal.withInitial(this::newMac);
        this.kdfRuns = Counter.builder("outpost.auth.secret.kdf")
                .description("Slow (KDF) secret checks and hashings").register(registry);
        this.dummyHash = hash(newSecret());
    }

    /** A new client secret: 256 random bits, URL-safe base64 (43 characters). */
    public String newSecret() {
        byte[] bytes = new byte[SECRET_BYTES];
        random.nextBytes(bytes);
        return B64.encodeToString(bytes);
    }

    /** Whether {@code secret} may be hashed and checked: no U+0000 and no unpaired surrogate (see above). */
    public static boolean acceptable(String secret) {
        return Constraints.storable(secret);
    }

    /** The slow hash of {@code secret} with a fresh salt. */
    public String hash(String secret) {
        if (!acceptable(secret)) {
            throw new IllegalArgumentException("a secret holding U+0000 or an unpaired surrogate cannot be hashed");
        }
        byte[] salt = new byte[SALT_BYTES];
        random.nextBytes(salt);
        return PREFIX + iterations + "$" + B64.encodeToString(salt) + "$"
                + B64.encodeToString(pbkdf2(secret, salt, iterations));
    }

    /**
     * The slow hash of {@code secret} with the salt and iterations of {@code beside} (the hash it replaces while
     * both are accepted), so that {@link #matching} checks the two with one KDF run.
     */
    public String hashBeside(String secret, String beside) {
        if (!acceptable(secret)) {
            throw new IllegalArgumentException("a secret holding U+0000 or an unpaired surrogate cannot be hashed");
        }
        String[] parts = parts(beside);
        return PREFIX + parts[0] + "$" + parts[1] + "$"
                + B64.encodeToString(pbkdf2(secret, B64D.decode(parts[1]), Integer.parseInt(parts[0])));
    }

    /** Whether two hashes share their salt and iterations, so that one KDF run checks a secret against both. */
    public static boolean sharesSalt(String a, String b) {
        if (a == null || b == null) {
            return false;
        }
        String[] x = parts(a);
        String[] y = parts(b);
        return x[0].equals(y[0]) && x[1].equals(y[1]);
    }

    /**
     * One slow check of {@code secret} against {@code current} and, when it is not null and shares its salt
     * ({@link #hashBeside}), {@code previous} too: answers the hash it matches, or null. Both are always compared,
     * in constant time; a previous hash with other parameters is not checked (that would take a second KDF run).
     */
    public String matching(String secret, String current, String previous) {
        String[] parts = parts(current);
        // PBKDF2 refuses an empty password: an empty secret costs the same and never matches
        byte[] actual = pbkdf2(secret.isEmpty() ? "\u0000" : secret, B64D.decode(parts[1]), Integer.parseInt(parts[0]));
        boolean usable = !secret.isEmpty() && acceptable(secret);
        boolean isCurrent = MessageDigest.isEqual(B64D.decode(parts[2]), actual);
        boolean isPrevious = sharesSalt(current, previous) && MessageDigest.isEqual(B64D.decode(parts(previous)[2]), actual);
        return !usable ? null : isCurrent ? current : isPrevious ? previous : null;
    }

    /** The slow check of {@code secret} against {@code hash}; a null hash (unknown client) takes the same time. */
    public boolean verify(String secret, String hash) {
        return matching(secret, hash == null ? dummyHash : hash, null) != null && hash != null;
    }

    /** The fast keyed fingerprint of a presented secret (≈1 µs). */
    public byte[] fingerprint(String secret) {
        return macs.get().doFinal(secret.getBytes(StandardCharsets.UTF_8));
    }

    public static boolean same(byte[] a, byte[] b) {
        return a != null && b != null && MessageDigest.isEqual(a, b);
    }

    /** Slow checks run since start (also exported as metric outpost_auth_secret_kdf_total). */
    public long kdfRuns() {
        return (long) kdfRuns.count();
    }

    /** Iterations, salt and derived key of a stored hash. */
    private static String[] parts(String hash) {
        return hash.substring(PREFIX.length()).split("\\$");
    }

    private byte[] pbkdf2(String secret, byte[] salt, int rounds) {
        kdfRuns.increment();
        PBEKeySpec spec = new PBEKeySpec(secret.toCharArray(), salt, rounds, HASH_BITS);
        try {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA512").generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA512 is unavailable", e);
        } finally {
            spec.clearPassword();
        }
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(fingerprintKey);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        }
    }
}
