package io.outpost.support.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;

import org.junit.jupiter.api.Test;

/** Tokens' signatures are checked by Conscrypt once installed, on the JDK's own keys; nothing else moves. */
class NativeSignaturesTest {

    @Test
    void es256AndRs256AreVerifiedByConscryptWithTheJdksKeysAndEverythingElseStays() throws Exception {
        assertThat(NativeSignatures.install()).isTrue();
        KeyPairGenerator ec = KeyPairGenerator.getInstance("EC", "SunEC");
        ec.initialize(new ECGenParameterSpec("secp256r1"));
        assertVerifiedHere("SHA256withECDSA", ec.generateKeyPair(), "SunEC");
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA", "SunRsaSign");
        rsa.initialize(2048);
        assertVerifiedHere("SHA256withRSA", rsa.generateKeyPair(), "SunRsaSign");
        assertThat(MessageDigest.getInstance("SHA-256").getProvider().getName()).isEqualTo("SUN");
        assertThat(Signature.getInstance("SHA384withECDSA").getProvider().getName()).isNotEqualTo(NativeSignatures.NAME);
    }

    private static void assertVerifiedHere(String algorithm, KeyPair keys, String jdkProvider) throws Exception {
        byte[] data = "header.payload".getBytes();
        Signature signer = Signature.getInstance(algorithm, jdkProvider);
        signer.initSign(keys.getPrivate());
        signer.update(data);
        byte[] signature = signer.sign();

        Signature verifier = Signature.getInstance(algorithm);
        verifier.initVerify(keys.getPublic());
        verifier.update(data);
        assertThat(verifier.verify(signature)).isTrue();
        assertThat(verifier.getProvider().getName()).isEqualTo(NativeSignatures.NAME);

        Signature tampered = Signature.getInstance(algorithm);
        tampered.initVerify(keys.getPublic());
        tampered.update("header.payloaD".getBytes());
        assertThat(tampered.verify(signature)).isFalse();
    }
}
