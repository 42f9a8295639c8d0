package io.outpost.auth.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.outpost.auth.TestConfigs;
import io.outpost.auth.security.KeyRing;
import io.outpost.testsupport.MutableClock;

/**
 * Which keys are published and which one signs, over time and without restarts (docs/auth.md, "Keys and
 * rotation"): time moves through a frozen {@link MutableClock}, the key folder is a temporary copy of the test keys.
 */
class KeyRingTest {

    private static final Path KEYS = Path.of("src/test/resources/test-keys");
    private static final String OLDER = KeyRotationTest.OLDER;
    private static final String NEWER = KeyRotationTest.NEWER;

    @TempDir
    Path dir;

    private final MutableClock clock = MutableClock.frozenAt(Instant.parse("2026-01-01T00:00:00Z"));

    @Test
    void theActiveKidSignsWhileANewerKeyIsOnlyPublished() throws IOException {
        copy("rotation/" + OLDER + ".pem", "rotation/" + NEWER + ".pem");
        KeyRing ring = ring(Map.of("keys.active-kid", OLDER));
        assertThat(ring.active().kid()).isEqualTo(OLDER);
        assertThat(ring.jwks()).contains(OLDER, NEWER);
        clock.advance(Duration.ofDays(2));
        assertThat(ring.jwks()).as("the next key is never retired").contains(OLDER, NEWER);
    }

    @Test
    void aKeyAddedWhileRunningIsPublishedFirstThenSignsThenTheOldOneRetires() throws IOException {
        copy("rotation/" + OLDER + ".pem");
        KeyRing ring = ring(Map.of());
        assertThat(ring.active().kid()).isEqualTo(OLDER);

        copy("rotation/" + NEWER + ".pem");
        ring.reload();
        assertThat(ring.jwks()).as("published at once").contains(OLDER, NEWER);
        assertThat(ring.active().kid()).as("does not sign before verifiers hold it").isEqualTo(OLDER);

        clock.advance(Duration.ofMinutes(10)); // keys.activation-delay
        assertThat(ring.active().kid()).isEqualTo(NEWER);
        assertThat(ring.publicKey(OLDER)).as("its tokens still verify").isPresent();

        clock.advance(Duration.ofMinutes(64)); // token-lifetime + 5 min after the switch, less a minute
        assertThat(ring.publicKey(OLDER)).isPresent();
        clock.advance(Duration.ofMinutes(1));
        assertThat(ring.publicKey(OLDER)).as("retired once every token it signed has expired").isEmpty();
        assertThat(ring.jwks()).doesNotContain(OLDER).contains(NEWER);
    }

    @Test
    void aKeyWhoseFileIsRemovedIsRetiredAtOnce() throws IOException {
        copy("rotation/" + OLDER + ".pem", "rotation/" + NEWER + ".pem");
        KeyRing ring = ring(Map.of());
        assertThat(ring.active().kid()).isEqualTo(NEWER);
        assertThat(ring.publicKey(OLDER)).isPresent();
        Files.delete(dir.resolve(OLDER + ".pem"));
        ring.reload();
        assertThat(ring.publicKey(OLDER)).isEmpty();
        assertThat(ring.active().kid()).isEqualTo(NEWER);
    }

    @Test
    void aFolderLeftWithoutUsableKeysKeepsTheCurrentOnes() throws IOException {
        copy("rotation/" + NEWER + ".pem");
        KeyRing ring = ring(Map.of());
        Files.writeString(dir.resolve(NEWER + ".pem"), "not a key");
        ring.reload();
        assertThat(ring.active().kid()).isEqualTo(NEWER);
        assertThat(ring.publicKey(NEWER)).isPresent();
    }

    @Test
    void anEcKeyOnAnotherCurveThanP256IsRefused() throws IOException {
        copy("curves/test-secp256k1.pem");
        assertThatThrownBy(() -> ring(Map.of())).hasMessageContaining("must be on the P-256 curve");
    }

    private KeyRing ring(Map<String, String> extra) {
        Map<String, String> settings = new HashMap<>(Map.of("keys.dir", dir.toString(), "keys.native-provider", "false",
                "keys.reload-interval", "PT1H"));
        settings.putAll(extra);
        return new KeyRing(TestConfigs.auth(settings), clock);
    }

    private void copy(String... files) throws IOException {
        for (String file : files) {
            Files.copy(KEYS.resolve(file), dir.resolve(Path.of(file).getFileName()));
        }
    }
}
