package io.outpost.support.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A token is bound to a player only by a canonical {@code player_uuid}, decided as before the hand parser. */
class VerifiedTokenTest {

    /** The reading before: UUID.fromString, kept only when it reads back as what was sent. */
    private static Optional<UUID> before(String playerUuid) {
        try {
            UUID parsed = UUID.fromString(playerUuid);
            return parsed.toString().equalsIgnoreCase(playerUuid) ? Optional.of(parsed) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f", "5F0C6D4E-8A1B-4C2D-9E3F-0A1B2C3D4E5F",
        "1-1-1-1-1", "+f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f", "-f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f",
        "5f0c6d4e-8a1b-4c2d-9e3f-+a1b2c3d4e5f", "\u06605f0c6d4-8a1b-4c2d-9e3f-0a1b2c3d4e5f",
        "\uFF15f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f", "5f0c6d4e8a1b4c2d9e3f0a1b2c3d4e5f", "", "player-7",
        "05f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f", "5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f "})
    void bindsOnlyCanonicalPlayerUuidsAsBefore(String playerUuid) {
        assertThat(token(playerUuid).player()).isEqualTo(before(playerUuid));
    }

    @Test
    void isUnboundWithoutPlayerUuid() {
        assertThat(token(null).player()).isEmpty();
    }

    private static VerifiedToken token(String playerUuid) {
        return new VerifiedToken("client-1", "client-1", List.of("notifications:read"), playerUuid, Instant.EPOCH,
                Instant.EPOCH.plusSeconds(60), "jti-1", "kid-1");
    }
}
