package io.outpost.support.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import org.junit.jupiter.api.Test;

import io.outpost.testsupport.Allocations;

/** The verified-token cache's key: exactly the SHA-256 of the token's UTF-8, at the cost of the key alone. */
class TokenDigestTest {

    private static TokenDigest expected(String token) throws Exception {
        byte[] utf8 = token.getBytes(StandardCharsets.UTF_8);
        ByteBuffer hash = ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(utf8));
        return new TokenDigest(hash.getLong(), hash.getLong(), hash.getLong(), hash.getLong());
    }

    @Test
    void isTheSha256OfTheTokensUtf8() throws Exception {
        String jwt = "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9." + "eyJzdWIiOiJnYW1lIn0".repeat(40) + ".c2ln";
        String[] tokens = {"", "a", jwt, jwt.repeat(3), "x".repeat(1024), "x".repeat(1025), "tök€n\u0000",
            "\uD83D\uDE00" + jwt, jwt + "\u007F", jwt + "\u0080"};
        for (String token : tokens) {
            assertThat(TokenDigest.of(token)).as("%d chars", token.length()).isEqualTo(expected(token));
            assertThat(TokenDigest.of(token)).as("again: nothing kept from before").isEqualTo(expected(token));
        }
        assertThat(TokenDigest.of(jwt)).isNotEqualTo(TokenDigest.of(jwt + "x"))
                .isNotEqualTo(TokenDigest.of("tök€n"));
    }

    @Test
    void aTokenCostsItsKeyAlone() {
        String jwt = "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9." + "eyJzdWIiOiJnYW1lIn0".repeat(30) + ".c2ln";
        Object[] kept = new Object[1];

        double bytes = Allocations.bytesPerCall(20_000, i -> kept[0] = TokenDigest.of(jwt));

        assertThat(bytes).as("a 48-byte key; a copy of the %d-char token would be more", jwt.length())
                .isLessThanOrEqualTo(48);
    }
}
