package io.outpost.auth.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

import org.jboss.logging.Logger;
import org.jose4j.jwk.EcJwkGenerator;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.PublicJsonWebKey;
import org.jose4j.jwk.RsaJwkGenerator;
import org.jose4j.keys.EllipticCurves;
import org.jose4j.lang.JoseException;

/**
 * The development signing key of a local run or a test run: generated at first start into a local folder
 * (never a configured or committed key) and reused by later starts, so tokens survive a restart.
 */
final class DevKeys {

    private static final Logger LOG = Logger.getLogger(DevKeys.class);

    private DevKeys() {
    }

    /** kid → private JWK of every development key of {@code algorithm} in {@code dir}, generating one if none. */
    static Map<String, String> loadOrGenerate(Path dir, String algorithm) {
        try {
            Map<String, String> found = existing(dir, algorithm);
            if (!found.isEmpty()) {
                return found;
            }
            PublicJsonWebKey jwk = generate(algorithm);
            String kid = "dev-" + jwk.calculateBase64urlEncodedThumbprint("SHA-256").substring(0, 16);
            jwk.setKeyId(kid);
            String json = jwk.toJson(JsonWebKey.OutputControlLevel.INCLUDE_PRIVATE);
            Files.createDirectories(dir);
            Path temp = Files.createTempFile(dir, ".new-", ".jwk");
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-------"));
            }
            Files.writeString(temp, json, StandardCharsets.UTF_8);
            Files.move(temp, dir.resolve(kid + ".jwk"), StandardCopyOption.ATOMIC_MOVE);
            LOG.warnf("generated the development signing key %s (%s) in %s: configure outpost.auth.keys.dir "
                    + "in production so that every replica signs with the same keys", kid, algorithm,
                    dir.toAbsolutePath());
            return Map.of(kid, json);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the development signing key in " + dir, e);
        } catch (JoseException e) {
            throw new IllegalStateException("cannot generate a development signing key", e);
        }
    }

    private static Map<String, String> existing(Path dir, String algorithm) throws IOException, JoseException {
        Map<String, String> found = new LinkedHashMap<>();
        if (!Files.isDirectory(dir)) {
            return found;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.getFileName().toString().matches("dev-[^.]+\\.jwk")).sorted().toList()) {
                String json = Files.readString(file, StandardCharsets.UTF_8);
                PublicJsonWebKey jwk = PublicJsonWebKey.Factory.newPublicJwk(json);
                if (jwk.getKeyType().equals(algorithm.equals(SigningKey.RS256) ? "RSA" : "EC")) {
                    found.put(jwk.getKeyId(), json);
                }
            }
        }
        return found;
    }

    private static PublicJsonWebKey generate(String algorithm) throws JoseException {
        return switch (algorithm) {
            case SigningKey.ES256 -> EcJwkGenerator.generateJwk(EllipticCurves.P256);
            case SigningKey.RS256 -> RsaJwkGenerator.generateJwk(2048);
            default -> throw new IllegalStateException(
                    "outpost.auth.keys.dev-key-algorithm must be ES256 or RS256, not " + algorithm);
        };
    }
}
