package io.outpost.auth.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import org.jose4j.jwk.PublicJsonWebKey;
import org.jose4j.lang.JoseException;

import io.outpost.auth.config.AuthConfig;

/**
 * Reads the configured signing keys: the key folder ({@code <kid>.pem|.jwk|.json}, hidden entries skipped) and the
 * inline keys, each checked before use — EC keys must be on P-256 (ES256), RSA keys at least 2048 bits (RS256), and
 * the two halves must sign and verify a probe.
 */
final class KeyLoader {

    private static final ECParameterSpec P256 = curve("secp256r1");

    private KeyLoader() {
    }

    /** kid → key text, from the key folder and the inline keys. */
    static Map<String, String> sources(AuthConfig.Keys config) {
        Map<String, String> sources = new LinkedHashMap<>();
        config.dir().ifPresent(dir -> {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path file : files.sorted().toList()) {
                    String name = file.getFileName().toString();
                    int dot = name.lastIndexOf('.');
                    // Kubernetes Secret volumes hold "..data" links beside the files: skip hidden entries
                    if (name.startsWith(".") || dot <= 0 || !Files.isRegularFile(file)
                            || !List.of("pem", "jwk", "json").contains(name.substring(dot + 1))) {
                        continue;
                    }
                    sources.put(name.substring(0, dot), Files.readString(file, StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the key folder " + dir, e);
            }
        });
        sources.putAll(config.inline());
        return sources;
    }

    /** A usable signing key from its text, or an exception naming what is wrong with it. */
    static SigningKey build(String name, String text, Optional<Provider> provider) {
        try {
            KeyMaterial.Pair pair = KeyMaterial.parse(text);
            String kid = pair.kidInside() != null ? pair.kidInside() : name;
            String algorithm = algorithm(pair.privateKey());
            PrivateKey signing = provider.isPresent() ? NativeCrypto.translate(pair.privateKey(), provider.get())
                    : pair.privateKey();
            selfCheck(signing, pair.publicKey(), algorithm, provider);
            PublicJsonWebKey jwk = PublicJsonWebKey.Factory.newPublicJwk(pair.publicKey());
            jwk.setKeyId(kid);
            jwk.setUse("sig");
            jwk.setAlgorithm(algorithm);
            return new SigningKey(kid, algorithm, signing, pair.publicKey(), jwk);
        } catch (GeneralSecurityException | JoseException e) {
            throw new IllegalStateException("signing key " + name + " is unusable: " + e.getMessage(), e);
        }
    }

    /** ES256 for an EC key on P-256 (compared with the JDK's own secp256r1 parameters), RS256 for RSA ≥ 2048. */
    static String algorithm(PrivateKey key) throws GeneralSecurityException {
        if (key instanceof ECPrivateKey ec) {
            if (!isP256(ec.getParams())) {
                throw new GeneralSecurityException("an EC key must be on the P-256 curve (ES256); generate one with "
                        + "`openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256`");
            }
            return SigningKey.ES256;
        }
        if (key instanceof RSAPrivateKey rsa && rsa.getModulus().bitLength() >= 2048) {
            return SigningKey.RS256;
        }
        throw new GeneralSecurityException("only EC P-256 (ES256) and RSA of 2048 bits or more (RS256) sign tokens");
    }

    static boolean isP256(ECParameterSpec params) {
        return params.getCurve().equals(P256.getCurve()) && params.getGenerator().equals(P256.getGenerator())
                && params.getOrder().equals(P256.getOrder()) && params.getCofactor() == P256.getCofactor();
    }

    /** Signs a probe and verifies it with the JDK's own provider: the halves match and the provider works. */
    private static void selfCheck(PrivateKey signing, PublicKey verifying, String algorithm,
            Optional<Provider> provider) throws GeneralSecurityException {
        String jca = algorithm.equals(SigningKey.ES256) ? "SHA256withECDSA" : "SHA256withRSA";
        byte[] probe = "outpost key check".getBytes(StandardCharsets.US_ASCII);
        Signature signer = provider.isPresent() ? Signature.getInstance(jca, provider.get()) : Signature.getInstance(jca);
        signer.initSign(signing);
        signer.update(probe);
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance(jca);
        verifier.initVerify(verifying);
        verifier.update(probe);
        if (!verifier.verify(signature)) {
            throw new GeneralSecurityException("its public key does not match its private key");
        }
    }

    private static ECParameterSpec curve(String name) {
        try {
            AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
            parameters.init(new ECGenParameterSpec(name));
            return parameters.getParameterSpec(ECParameterSpec.class);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK does not know " + name, e);
        }
    }
}
