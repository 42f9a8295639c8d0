package io.outpost.support.security;

import java.security.Provider;
import java.security.Security;

import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.conscrypt.Conscrypt;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;

/**
 * Bearer tokens are verified through BoringSSL (Conscrypt) rather than JDK 17's SunEC: ≈20,000 ES256
 * verifications per second and core instead of ≈1,000 (measured here). A burst of new long polls — every client
 * reconnecting after a deploy, each with its own token — otherwise fills the event loops with elliptic-curve
 * arithmetic until every query's deadline passes unheard.
 *
 * <p>Only the two signature algorithms tokens use are taken from Conscrypt, through a provider of their own put
 * first in the list ({@value #NAME}); TLS, hashing, key factories and everything else stay with the JDK's
 * providers. Keys made by the JDK work as they are. Where Conscrypt's native library does not load, nothing
 * changes (the JDK verifies, only slower).
 */
@Singleton
public class NativeSignatures {

    static final String NAME = "OutpostSignatures";
    private static final Logger LOG = Logger.getLogger(NativeSignatures.class);
    private static final String[] ALGORITHMS = { "SHA256withECDSA", "SHA256withRSA" };

    void install(@Observes @Priority(1) StartupEvent event) {
        install();
    }

    /** Puts Conscrypt's ES256 and RS256 signatures first, once; answers whether they are in place. */
    public static synchronized boolean install() {
        if (Security.getProvider(NAME) != null) {
            return true;
        }
        try {
            if (!Conscrypt.isAvailable()) {
                LOG.warn("Conscrypt is not available on this platform: tokens are verified by the JDK's provider");
                return false;
            }
            Provider conscrypt = Conscrypt.newProvider();
            Provider signatures = new Provider(NAME, "1", "Conscrypt's " + String.join(" and ", ALGORITHMS)) {
            };
            for (String algorithm : ALGORITHMS) {
                signatures.put("Signature." + algorithm, conscrypt.getService("Signature", algorithm).getClassName());
            }
            Security.insertProviderAt(signatures, 1);
            return true;
        } catch (Throwable e) { // UnsatisfiedLinkError and the like: fall back, never fail the start
            LOG.warnf("Conscrypt could not be loaded (%s): tokens are verified by the JDK's provider", e.toString());
            return false;
        }
    }
}
