package io.outpost.auth.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.PublicJsonWebKey;
import org.jose4j.lang.JoseException;

import io.outpost.auth.config.AuthConfig;
import io.quarkus.runtime.Startup;

/**
 * The signing keys of this instance: every configured key is published, one signs (the {@code active-kid}, else
 * the greatest kid). Loaded once at start-up; a key that cannot be read, or whose halves do not match, stops the
 * start. Rotation is a configuration change rolled out replica by replica (docs/auth.md).
 */
@Startup
@Singleton
public class KeyRing {

    private static final Logger LOG = Logger.getLogger(KeyRing.class);

    private final Map<String, SigningKey> keys;
    private final SigningKey active;
    private final Optional<Provider> provider;
    private final String jwks;
    private final Map<String, String> jwkByKid;

    public KeyRing(AuthConfig config) {
        Optional<Provider> provider = config.keys().nativeProvider() ? NativeCrypto.load() : Optional.empty();
        this.provider = provider;
        List<SigningKey> loaded = new ArrayList<>();
        for (Map.Entry<String, String> source : configuredSources(config.keys()).entrySet()) {
            loaded.add(build(source.getKey(), source.getValue(), provider));
        }
        if (loaded.isEmpty()) {
            if (!config.keys().generateDevKey()) {
                throw new IllegalStateException("no signing key configured: set outpost.auth.keys.dir or "
                        + "outpost.auth.keys.inline.<kid> (docs/auth.md)");
            }
            for (Map.Entry<String, String> dev : DevKeys.loadOrGenerate(config.keys().devKeyDir(),
                    config.keys().devKeyAlgorithm()).entrySet()) {
                loaded.add(build(dev.getKey(), dev.getValue(), provider));
            }
        }
        Map<String, SigningKey> byKid = new LinkedHashMap<>();
        loaded.stream().sorted(Comparator.comparing(SigningKey::kid)).forEach(key -> {
            if (byKid.put(key.kid(), key) != null) {
                throw new IllegalStateException("two signing keys have the kid " + key.kid());
            }
        });
        this.keys = Collections.unmodifiableMap(byKid);
        String activeKid = config.keys().activeKid().orElse(Collections.max(byKid.keySet()));
        this.active = byKid.get(activeKid);
        if (active == null) {
            throw new IllegalStateException("outpost.auth.keys.active-kid=" + activeKid + " names no configured key; "
                    + "known: " + byKid.keySet());
        }
        this.jwkByKid = byKid.values().stream().collect(Collectors.toUnmodifiableMap(SigningKey::kid,
                key -> key.publicJwk().toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY)));
        this.jwks = byKid.keySet().stream().map(jwkByKid::get).collect(Collectors.joining(",", "{\"keys\":[", "]}"));
        LOG.infof("signing keys %s published; %s (%s) signs, through %s", byKid.keySet(), active.kid(),
                active.algorithm(), provider.map(Provider::getName).orElse("the JDK's provider"));
    }

    /** The key that signs new tokens. */
    public SigningKey active() {
        return active;
    }

    /** The provider that signs (Conscrypt), or empty for the JDK's default. */
    Optional<Provider> signatureProvider() {
        return provider;
    }

    /** The public key published under {@code kid}, if any. */
    public Optional<PublicKey> publicKey(String kid) {
        SigningKey key = keys.get(kid);
        return key == null ? Optional.empty() : Optional.of(key.publicKey());
    }

    /** The JWK Set document (public parts only). */
    public String jwks() {
        return jwks;
    }

    /** One published JWK as JSON, if {@code kid} is known. */
    public Optional<String> jwk(String kid) {
        return Optional.ofNullable(jwkByKid.get(kid));
    }

    /** Signing algorithms of the published keys, for the discovery document. */
    public List<String> algorithms() {
        return keys.values().stream().map(SigningKey::algorithm).distinct().sorted().toList();
    }

    /** kid → key text, from the key folder ({@code <kid>.pem|.jwk|.json}) and the inline keys. */
    private static Map<String, String> configuredSources(AuthConfig.Keys config) {
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

    private static SigningKey build(String name, String text, Optional<Provider> provider) {
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

    private static String algorithm(PrivateKey key) throws GeneralSecurityException {
        if (key instanceof ECPrivateKey ec && ec.getParams().getCurve().getField().getFieldSize() == 256) {
            return SigningKey.ES256;
        }
        if (key instanceof RSAPrivateKey rsa && rsa.getModulus().bitLength() >= 2048) {
            return SigningKey.RS256;
        }
        throw new GeneralSecurityException("only EC P-256 (ES256) and RSA of 2048 bits or more (RS256) sign tokens");
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
}
