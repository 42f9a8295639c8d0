package io.outpost.model.api;

import static io.outpost.model.TestJson.assertSerializesTo;
import static io.outpost.model.TestJson.fieldNames;
import static io.outpost.model.TestJson.read;
import static io.outpost.model.TestJson.roundTrip;
import static io.outpost.model.TestJson.tree;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

class TokenResponseJsonTest {

    @Test
    void writesSpecFieldNames() {
        TokenResponse token = new TokenResponse("jwt.value.sig", "bearer", "refresh-1", 3600);

        assertSerializesTo(token, """
                {"access_token":"jwt.value.sig","token_type":"bearer",
                 "refresh_token":"refresh-1","expires_in":3600}""");
    }

    @Test
    void bearerFactoryOmitsRefreshToken() {
        JsonNode json = tree(TokenResponse.bearer("jwt.value.sig", 900));

        assertThat(fieldNames(json)).containsExactlyInAnyOrder("access_token", "token_type", "expires_in");
        assertThat(json.get("token_type").asText()).isEqualTo("bearer");
        assertThat(json.get("expires_in").isIntegralNumber()).isTrue();
        assertThat(json.get("expires_in").asLong()).isEqualTo(900);
    }

    @Test
    void roundTripsWithAndWithoutRefreshToken() {
        TokenResponse full = new TokenResponse("a", "bearer", "r", 60);
        TokenResponse bearer = TokenResponse.bearer("a", 60);

        assertThat(roundTrip(full)).isEqualTo(full);
        assertThat(roundTrip(bearer)).isEqualTo(bearer);
        assertThat(roundTrip(bearer).refreshToken()).isNull();
    }

    @Test
    void readsSpecFieldNames() {
        TokenResponse token = read("""
                {"access_token":"t","token_type":"bearer","expires_in":120,"refresh_token":"r"}""",
                TokenResponse.class);

        assertThat(token).isEqualTo(new TokenResponse("t", "bearer", "r", 120));
    }
}
