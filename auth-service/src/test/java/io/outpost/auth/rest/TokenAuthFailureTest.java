package io.outpost.auth.rest;

import static io.outpost.auth.TestClients.DISABLED;
import static io.outpost.auth.TestClients.DISABLED_SECRET;
import static io.outpost.auth.TestClients.GAME;
import static io.outpost.auth.TestClients.GAME_SECRET;
import static io.outpost.auth.TestClients.GRANT;
import static io.outpost.auth.TestClients.TOKEN_PATH;
import static io.outpost.auth.TestClients.basic;
import static io.outpost.auth.TestClients.fromOwnAddress;
import static io.outpost.auth.TestClients.tokenRequest;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.outpost.auth.service.SecretHasher;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/** Every 401 of the token endpoint (DESIGN §2): same status, header and body whatever went wrong. */
@QuarkusTest
class TokenAuthFailureTest {

    static final String INVALID_CLIENT = "{\"error\":\"invalid_client\",\"error_description\":\"Client authentication "
            + "failed\",\"auth_success\":false,\"error_code\":\"auth_invalid_client\",\"desc\":\"Client authentication failed\"}";

    private static final String REPLACEMENT = "test-replacement";
    private static final String REPLACEMENT_SECRET = "fffd-\uFFFD-secret";
    private static final String RESERVED = "test-reserved";
    private static final String RESERVED_SECRET = "re%s:er+v ed/&=?";

    @Inject
    SecretHasher hasher;

    @Test
    void refusesARequestWithoutAuthorization() {
        assertInvalidClient(fromOwnAddress().contentType(ContentType.JSON).body(GRANT));
    }

    @Test
    void refusesMalformedBasicValues() {
        String noColon = Base64.getEncoder().encodeToString("test-game".getBytes(StandardCharsets.UTF_8));
        String emptyId = Base64.getEncoder().encodeToString(":secret".getBytes(StandardCharsets.UTF_8));
        String notUtf8 = Base64.getEncoder().encodeToString(new byte[] { (byte) 0xC3, 0x28, 0x3A, 0x61 });
        for (String value : List.of("Bearer abc", "Basic", "Basic ", "Basic !!!not-base64!!!", "Basic " + noColon,
                "Basic " + emptyId, "Basic " + notUtf8, "Digest username=\"test-game\"")) {
            assertInvalidClient(fromOwnAddress().header("Authorization", value).contentType(ContentType.JSON).body(GRANT));
        }
    }

    @Test
    void idsAndSecretsPostgreSQLCannotHoldAreTheUsual401NeverA500() {
        for (String id : List.of("te\u0000st", "te%00st", "nul%00", "a".repeat(65), "has space", "\u00e9mile", "x%zz")) {
            assertInvalidClient(tokenRequest(id, "whatever"));
        }
        assertInvalidClient(tokenRequest(GAME, "secret\u0000with-nul"));
        assertInvalidClient(tokenRequest(GAME, "%00"));
    }

    /**
     * RFC 6749 §2.3.1: the id and the secret inside Basic are form-url-encoded UTF-8. An escape that is not UTF-8
     * (a byte no character starts or goes on with, an overlong form, a surrogate, beyond U+10FFFF, a sequence cut
     * short) or not an escape at all ({@code %} without two hex digits) makes the credentials unreadable: the
     * usual 401, before any KDF — never U+FFFD in its place, which made {@code a%FF} and {@code a%FE} one secret,
     * nor the text kept as it came.
     */
    @Test
    void anEscapeThatIsNotUtf8OrNotAnEscapeIsTheUsual401NeverAReplacementCharacter() {
        long before = hasher.kdfRuns();
        for (String escape : List.of("%FF", "%FE", "%EF%BF", "%C0%80", "%ED%A0%80", "%F4%90%80%80", "%BD")) {
            assertInvalidClient(tokenRequest(REPLACEMENT, "fffd-" + escape + "-secret"));
        }
        assertInvalidClient(tokenRequest(REPLACEMENT + "%FF", REPLACEMENT_SECRET));
        assertInvalidClient(tokenRequest(RESERVED, RESERVED_SECRET)); // sent as written: "%s:" is no escape
        assertInvalidClient(tokenRequest(GAME, GAME_SECRET + "%"));
        assertInvalidClient(tokenRequest(GAME, GAME_SECRET + "%4"));
        assertThat(hasher.kdfRuns() - before).as("refused before the KDF").isZero();
        tokenRequest(REPLACEMENT, "fffd-%EF%BF%BD-secret").post(TOKEN_PATH).then().statusCode(200);
        tokenRequest(REPLACEMENT, REPLACEMENT_SECRET).post(TOKEN_PATH).then().statusCode(200);
    }

    @Test
    void theRightSecretWithNulsAppendedIsAWrongSecret() {
        String secret = io.outpost.auth.TestClients.GAME_SECRET;
        long before = hasher.kdfRuns();
        assertInvalidClient(tokenRequest(GAME, secret + "%00"));
        assertInvalidClient(tokenRequest(GAME, secret + "\u0000"));
        String nuls = Base64.getEncoder().encodeToString((GAME + ":" + secret + "\0\0\0").getBytes(StandardCharsets.UTF_8));
        assertInvalidClient(fromOwnAddress().header("Authorization", "Basic " + nuls).contentType(ContentType.JSON).body(GRANT));
        assertThat(hasher.kdfRuns() - before).as("refused before the KDF").isZero();
        tokenRequest(GAME, secret).post(TOKEN_PATH).then().statusCode(200);
    }

    @Test
    void twoCredentialsInOneRequestAreRefusedWhicheverComesFirst() throws Exception {
        String good = basic(io.outpost.auth.TestClients.GAME, io.outpost.auth.TestClients.GAME_SECRET);
        String bad = basic(GAME, "not-the-secret");
        for (String[] pair : new String[][] { { good, bad }, { bad, good }, { good, good } }) {
            for (String[] call : new String[][] { { TOKEN_PATH, GRANT }, { "/users/v2/oauth/revoke", "{\"token\":\"x\"}" },
                    { "/users/v2/oauth/introspect", "{\"token\":\"x\"}" } }) {
                // a socket of its own: two header lines exactly as written
                String response = TokenValidationTest.raw("POST " + call[0], List.of("Authorization: " + pair[0],
                        "Authorization: " + pair[1], "Content-Type: application/json"), call[1]);
                assertThat(response).as(call[0]).startsWith("HTTP/1.1 401 ").endsWith("\r\n\r\n" + INVALID_CLIENT)
                        .containsIgnoringCase("\r\nWWW-Authenticate: Basic realm=\"outpost\"\r\n");
            }
        }
    }

    @Test
    void refusesAnUnknownClient() {
        assertInvalidClient(tokenRequest("no-such-client", "whatever"));
    }

    @Test
    void refusesAWrongSecret() {
        assertInvalidClient(tokenRequest(GAME, "not-the-secret"));
        assertInvalidClient(tokenRequest(GAME, ""));
    }

    @Test
    void refusesADisabledClientEvenWithItsSecret() {
        assertInvalidClient(tokenRequest(DISABLED, DISABLED_SECRET));
        assertInvalidClient(tokenRequest(DISABLED, "not-the-secret"));
    }

    @Test
    void unknownClientAndWrongSecretEachCostExactlyOneSlowCheck() {
        for (String[] attempt : new String[][] { { "unknown-client-1", "x" }, { "test-timing", "wrong" } }) {
            long before = hasher.kdfRuns();
            assertInvalidClient(tokenRequest(attempt[0], attempt[1]));
            assertThat(hasher.kdfRuns() - before).as(attempt[0]).isEqualTo(1);
        }
    }

    @Test
    void unknownClientAndWrongSecretTakeTheSameTime() {
        List<Long> unknown = new ArrayList<>();
        List<Long> wrong = new ArrayList<>();
        for (int i = 0; i < 8; i++) { // interleaved, alternating which goes first; below the throttle
            if (i % 2 == 0) {
                unknown.add(timed(tokenRequest("unknown-timing-" + i, "guess-" + i)));
                wrong.add(timed(tokenRequest("test-timing", "guess-" + i)));
            } else {
                wrong.add(timed(tokenRequest("test-timing", "guess-" + i)));
                unknown.add(timed(tokenRequest("unknown-timing-" + i, "guess-" + i)));
            }
        }
        // the fastest of each: machine noise only ever adds time, so the minimum is the cost of the path itself.
        // A path that skipped the slow check would be over ten times faster than the other; the band leaves room
        // for a machine whose speed wanders (1.53 was seen once, in a full run on a 2-core box whose speed varied 2x that day)
        double ratio = (double) Collections.min(unknown) / Collections.min(wrong);
        assertThat(ratio).as("fastest unknown %s ms vs wrong secret %s ms", Collections.min(unknown) / 1_000_000,
                Collections.min(wrong) / 1_000_000).isBetween(0.5, 2.0);
    }

    private static long timed(RequestSpecification request) {
        long start = System.nanoTime();
        assertThat(request.post(TOKEN_PATH).statusCode()).isEqualTo(401);
        return System.nanoTime() - start;
    }

    static void assertInvalidClient(RequestSpecification request) {
        Response response = request.post(TOKEN_PATH);
        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.header("WWW-Authenticate")).isEqualTo("Basic realm=\"outpost\"");
        assertThat(response.header("Cache-Control")).isEqualTo("no-store");
        assertThat(response.contentType()).startsWith("application/json");
        assertThat(response.asString()).isEqualTo(INVALID_CLIENT);
    }
}
