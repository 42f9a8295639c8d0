package io.outpost.auth.rest;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.outpost.auth.service.ClientSnapshot;

/** Bodies of the client-admin answers. A secret appears only in the answer that created it. */
final class AdminClientViews {

    private AdminClientViews() {
    }

    /** A client as administrators see it: never its secret or hash; {@code sandbox_ids} only when it is bound. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Client(
            @JsonProperty("client_id") String clientId,
            List<String> permissions,
            @JsonProperty("player_uuid") UUID playerUuid,
            @JsonProperty("sandbox_ids") List<String> sandboxIds,
            boolean enabled,
            @JsonProperty("created_at") Instant createdAt,
            @JsonProperty("updated_at") Instant updatedAt,
            @JsonProperty("previous_secret_expires_at") Instant previousSecretExpiresAt,
            @JsonProperty("tokens_revoked_before") Instant tokensRevokedBefore) {

        static Client of(ClientSnapshot client) {
            return new Client(client.clientId(), client.permissions(), client.playerUuid(), client.sandboxIds(),
                    client.enabled(),
                    client.createdAt(), client.updatedAt(), client.previousSecretExpiresAt(),
                    client.tokensRevokedBefore());
        }
    }

    /** A newly created client with its secret (shown this once). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Created(
            @JsonProperty("client_id") String clientId,
            @JsonProperty("client_secret") String clientSecret,
            List<String> permissions,
            @JsonProperty("player_uuid") UUID playerUuid,
            @JsonProperty("sandbox_ids") List<String> sandboxIds,
            boolean enabled,
            @JsonProperty("created_at") Instant createdAt,
            @JsonProperty("updated_at") Instant updatedAt) {

        static Created of(ClientSnapshot client, String secret) {
            return new Created(client.clientId(), secret, client.permissions(), client.playerUuid(),
                    client.sandboxIds(), client.enabled(), client.createdAt(), client.updatedAt());
        }
    }

    /** A rotated secret (shown this once), and until when the previous one still works (absent: it stopped). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Secret(@JsonProperty("client_id") String clientId, @JsonProperty("client_secret") String clientSecret,
            @JsonProperty("previous_secret_expires_at") Instant previousSecretExpiresAt) {
    }

    /** One page of clients in id order; {@code next} is the {@code after} value of the next page, while there is one. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Page(List<Client> clients, String next) {
    }
}
