package io.outpost.auth.security;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jose4j.jwk.PublicJsonWebKey;
import org.jose4j.lang.JoseException;

/**
 * Reads a private key pair from its configured text: a private JWK ({@code {"kty":…,"d":…}}) or PEM. PEM holds a
 * PKCS#8 {@code PRIVATE KEY} (as {@code openssl genpkey} writes it), optionally followed by its {@code PUBLIC KEY};
 * an EC key without one is completed from the public point OpenSSL embeds in the PKCS#8 structure.
 */
final class KeyMaterial {

    private static final Pattern PEM_BLOCK =
            Pattern.compile("-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");
    /** DER of the public point OpenSSL writes into a P-256 PKCS#8 key: BIT STRING, 66 bytes, uncompressed (04). */
    private static final byte[] P256_POINT_PREFIX = { 0x03, 0x42, 0x00, 0x04 };

    record Pair(PrivateKey privateKey, PublicKey publicKey, String kidInside) {
    }

    private KeyMaterial() {
    }

    static Pair parse(String text) throws GeneralSecurityException {
        String trimmed = text.strip();
        return trimmed.startsWith("{") ? fromJwk(trimmed) : fromPem(trimmed);
    }

    private static Pair fromJwk(String json) throws GeneralSecurityException {
        try {
            PublicJsonWebKey jwk = PublicJsonWebKey.Factory.newPublicJwk(json);
            if (jwk.getPrivateKey() == null) {
                throw new GeneralSecurityException("the JWK has no private part (\"d\")");
            }
            return new Pair(jwk.getPrivateKey(), jwk.getPublicKey(), jwk.getKeyId());
        } catch (JoseException e) {
            throw new GeneralSecurityException("not a usable JWK: " + e.getMessage(), e);
        }
    }

    private static Pair fromPem(String pem) throws GeneralSecurityException {
        byte[] pkcs8 = null;
        byte[] spki = null;
        Matcher blocks = PEM_BLOCK.matcher(pem);
        while (blocks.find()) {
            byte[] der = Base64.getMimeDecoder().decode(blocks.group(2).getBytes(StandardCharsets.US_ASCII));
            switch (blocks.group(1)) {
                case "PRIVATE KEY" -> pkcs8 = der;
                case "PUBLIC KEY" -> spki = der;
                case "EC PRIVATE KEY", "RSA PRIVATE KEY" -> throw new GeneralSecurityException(blocks.group(1)
                        + " (SEC1/PKCS#1) is not read: convert it with `openssl pkcs8 -topk8 -nocrypt`");
                default -> {
                    // certificates and parameters are of no use here
                }
            }
        }
        if (pkcs8 == null) {
            throw new GeneralSecurityException("no PEM 'PRIVATE KEY' block (PKCS#8) found");
        }
        PrivateKey privateKey = privateKey(pkcs8);
        String family = privateKey.getAlgorithm();
        PublicKey publicKey = spki != null
                ? KeyFactory.getInstance(family).generatePublic(new X509EncodedKeySpec(spki))
                : publicFromPrivate(privateKey, pkcs8);
        return new Pair(privateKey, publicKey, null);
    }

    private static PrivateKey privateKey(byte[] pkcs8) throws GeneralSecurityException {
        GeneralSecurityException last = null;
        for (String family : new String[] { "EC", "RSA" }) {
            try {
                return KeyFactory.getInstance(family).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        throw new GeneralSecurityException("the PKCS#8 key is neither EC nor RSA", last);
    }

    private static PublicKey publicFromPrivate(PrivateKey key, byte[] pkcs8) throws GeneralSecurityException {
        if (key instanceof RSAPrivateCrtKey rsa) {
            return KeyFactory.getInstance("RSA")
                    .generatePublic(new RSAPublicKeySpec(rsa.getModulus(), rsa.getPublicExponent()));
        }
        if (key instanceof ECPrivateKey ec) {
            int at = indexOf(pkcs8, P256_POINT_PREFIX);
            if (at >= 0 && at + P256_POINT_PREFIX.length + 64 <= pkcs8.length) {
                int from = at + P256_POINT_PREFIX.length;
                ECPoint point = new ECPoint(new BigInteger(1, Arrays.copyOfRange(pkcs8, from, from + 32)),
                        new BigInteger(1, Arrays.copyOfRange(pkcs8, from + 32, from + 64)));
                return KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(point, ec.getParams()));
            }
        }
        throw new GeneralSecurityException("the PEM holds no public key: append it (`openssl pkey -pubout`)");
    }

    private static int indexOf(byte[] data, byte[] pattern) {
        outer:
        for (int i = 0; i <= data.length - pattern.length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (data[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
