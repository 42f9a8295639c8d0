package io.outpost.auth.security;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.Security;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Optional;

import org.conscrypt.Conscrypt;
import org.jboss.logging.Logger;

/**
 * Conscrypt (BoringSSL) as the signing provider: JDK 17's SunEC signs ≈1,600 ES256 tokens/s per core, Conscrypt
 * ≈30,000–47,000 (PERFORMANCE.md). It is added after the JDK's providers, so nothing else (TLS, hashing)
 * changes; only the token signer asks for it by name. Its signatures are plain DER ECDSA, which jose4j turns into
 * the JOSE r‖s form exactly as for the JDK's own (checked by the interop tests with a second JOSE library).
 */
final class NativeCrypto {

    private static final Logger LOG = Logger.getLogger(NativeCrypto.class);

    private NativeCrypto() {
    }

    /** The registered provider, or empty when its native library does not load on this platform. */
    static synchronized Optional<Provider> load() {
        try {
            if (!Conscrypt.isAvailable()) {
                LOG.warn("Conscrypt is not available on this platform: tokens are signed with the JDK's provider");
                return Optional.empty();
            }
            Provider existing = Security.getProvider("Conscrypt");
            if (existing != null) {
                return Optional.of(existing);
            }
            Provider provider = Conscrypt.newProvider();
            Security.addProvider(provider);
            return Optional.of(provider);
        } catch (Throwable e) { // UnsatisfiedLinkError and the like: fall back, never fail the start
            LOG.warnf("Conscrypt could not be loaded (%s): tokens are signed with the JDK's provider", e.toString());
            return Optional.empty();
        }
    }

    /** The same private key as an object of {@code provider}, so that signing does not convert it every time. */
    static PrivateKey translate(PrivateKey key, Provider provider) throws GeneralSecurityException {
        return KeyFactory.getInstance(key.getAlgorithm(), provider)
                .generatePrivate(new PKCS8EncodedKeySpec(key.getEncoded()));
    }
}
