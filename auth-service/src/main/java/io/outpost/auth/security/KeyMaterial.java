package io.outpost.auth.security;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.ECFieldFp;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.EllipticCurve;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jose4j.jwk.PublicJsonWebKey;
import org.jose4j.lang.JoseException;

/**
 * Reads a private key pair from its configured text: a private JWK ({@code {"kty":…,"d":…}}) or PEM. PEM holds a
 * PKCS#8 {@code PRIVATE KEY} (as {@code openssl genpkey} writes it), optionally followed by its {@code PUBLIC KEY};
 * without one, the public half is computed from the private one through the JDK's key specifications (RSA: modulus
 * and exponent; EC: the point d·G on the key's own curve), never read out of the DER bytes.
 */
final class KeyMaterial {

    private static final Pattern PEM_BLOCK =
            Pattern.compile("-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");

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
                : publicFromPrivate(privateKey);
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

    private static PublicKey publicFromPrivate(PrivateKey key) throws GeneralSecurityException {
        if (key instanceof RSAPrivateCrtKey rsa) {
            return KeyFactory.getInstance("RSA")
                    .generatePublic(new RSAPublicKeySpec(rsa.getModulus(), rsa.getPublicExponent()));
        }
        if (key instanceof ECPrivateKey ec && ec.getParams().getCurve().getField() instanceof ECFieldFp) {
            ECParameterSpec params = ec.getParams();
            ECPoint q = multiply(params.getGenerator(), ec.getS(), params.getCurve());
            return KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(q, params));
        }
        throw new GeneralSecurityException("the PEM holds no public key: append it (`openssl pkey -pubout`)");
    }

    /** The public point d·G of a private scalar (double-and-add; run once per key, at load). */
    static ECPoint multiply(ECPoint g, BigInteger d, EllipticCurve curve) {
        ECPoint result = ECPoint.POINT_INFINITY;
        for (int i = d.bitLength() - 1; i >= 0; i--) {
            result = add(result, result, curve);
            if (d.testBit(i)) {
                result = add(result, g, curve);
            }
        }
        return result;
    }

    private static ECPoint add(ECPoint a, ECPoint b, EllipticCurve curve) {
        if (a.equals(ECPoint.POINT_INFINITY)) {
            return b;
        }
        if (b.equals(ECPoint.POINT_INFINITY)) {
            return a;
        }
        BigInteger p = ((ECFieldFp) curve.getField()).getP();
        BigInteger slope;
        if (a.getAffineX().equals(b.getAffineX())) {
            if (a.getAffineY().add(b.getAffineY()).mod(p).signum() == 0) {
                return ECPoint.POINT_INFINITY;
            }
            BigInteger x = a.getAffineX();
            slope = x.multiply(x).multiply(BigInteger.valueOf(3)).add(curve.getA())
                    .multiply(a.getAffineY().shiftLeft(1).modInverse(p)).mod(p);
        } else {
            slope = b.getAffineY().subtract(a.getAffineY())
                    .multiply(b.getAffineX().subtract(a.getAffineX()).modInverse(p)).mod(p);
        }
        BigInteger x = slope.multiply(slope).subtract(a.getAffineX()).subtract(b.getAffineX()).mod(p);
        BigInteger y = slope.multiply(a.getAffineX().subtract(x)).subtract(a.getAffineY()).mod(p);
        return new ECPoint(x, y);
    }
}
