package io.outpost.auth.rest;

import static io.outpost.auth.TestClients.GAME;
import static io.outpost.auth.TestClients.GAME_SECRET;
import static io.outpost.auth.TestClients.TOKEN_PATH;
import static io.outpost.auth.TestClients.basic;
import static io.outpost.auth.TestClients.fromOwnAddress;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/**
 * Every 422 of the token endpoint (spec §4.1, §7; DESIGN §5), with its exact body, and the other answers of the OAuth
 * paths that are not about credentials (405, OPTIONS): each with {@code Cache-Control: no-store}.
 */
@QuarkusTest
class TokenValidationTest {

    private static final String MISSING_BODY = "{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"Field required\",\"type\":\"missing\"}]}";
    private static final String UNREADABLE = "{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"JSON decode error\",\"type\":\"json_invalid\"}]}";
    private static final String MISSING_GRANT = "{\"detail\":[{\"loc\":[\"body\",\"grant_type\"],\"msg\":\"Field required\",\"type\":\"missing\"}]}";
    private static final String WRONG_GRANT = "{\"detail\":[{\"loc\":[\"body\",\"grant_type\"],"
            + "\"msg\":\"Input should be 'client_credentials'\",\"type\":\"literal_error\"}]}";
    private static final String UNSUPPORTED = "{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"Unsupported content type: send "
            + "application/json or application/x-www-form-urlencoded\",\"type\":\"json_invalid\"}]}";
    private static final String LONG_ADDRESS = "{\"loc\":[\"header\",\"x-svc-client-addr\"],"
            + "\"msg\":\"String should have at most 32 characters\",\"type\":\"string_too_long\"}";

    @Test
    void refusesAMissingBody() {
        assertUnprocessable(authorized().contentType(ContentType.JSON), MISSING_BODY);
    }

    @Test
    void refusesAnUnparsableBody() {
        assertUnprocessable(authorized().contentType(ContentType.JSON).body("{\"grant_type\":"), UNREADABLE);
        assertUnprocessable(authorized().contentType(ContentType.JSON).body("{\"grant_type\":\"client_credentials\"} x"),
                UNREADABLE);
        assertUnprocessable(authorized().contentType(ContentType.JSON).body("{\"grant_type\":\"client_credentials\"} {}"),
                UNREADABLE);
    }

    @Test
    void refusesABodyThatIsNotAnObject() {
        for (String body : new String[] { "[\"client_credentials\"]", "\"grant_type=client_credentials\"", "7" }) {
            assertUnprocessable(authorized().contentType(ContentType.JSON).body(body),
                    "{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"Input should be a valid dictionary\",\"type\":\"json_invalid\"}]}");
        }
    }

    @Test
    void refusesAMissingGrantType() {
        assertUnprocessable(authorized().contentType(ContentType.JSON).body("{\"scope\":\"x\"}"), MISSING_GRANT);
        assertUnprocessable(authorized().contentType(ContentType.URLENC).body("scope=x"), MISSING_GRANT);
    }

    @Test
    void refusesAnyOtherGrantType() {
        assertUnprocessable(authorized().contentType(ContentType.JSON).body("{\"grant_type\":\"password\"}"), WRONG_GRANT);
        assertUnprocessable(authorized().contentType(ContentType.URLENC).body("grant_type=authorization_code"),
                WRONG_GRANT);
        assertUnprocessable(authorized().contentType(ContentType.JSON).body("{\"grant_type\":\"CLIENT_CREDENTIALS\"}"),
                WRONG_GRANT);
    }

    @Test
    void refusesAGrantTypeThatIsNotAString() {
        for (String value : new String[] { "1", "null", "true", "[\"client_credentials\"]", "{}" }) {
            assertUnprocessable(authorized().contentType(ContentType.JSON).body("{\"grant_type\":" + value + "}"),
                    WRONG_GRANT);
        }
    }

    @Test
    void refusesOtherContentTypes() {
        assertUnprocessable(authorized().contentType(ContentType.TEXT).body("grant_type=client_credentials"), UNSUPPORTED);
    }

    @Test
    void refusesMalformedContentTypesAsUnsupportedOnEveryOAuthEndpoint() throws Exception {
        for (String path : List.of(TOKEN_PATH, "/users/v2/oauth/revoke", "/users/v2/oauth/introspect")) {
            for (String type : List.of("foo", "/", "application/", "a/b/c", "application/json, text/plain")) {
                String body = path.equals(TOKEN_PATH) ? "{\"grant_type\":\"client_credentials\"}" : "{\"token\":\"x\"}";
                HttpResponse<String> response = send(HttpRequest.newBuilder(uri(path)).header("Content-Type", type)
                        .header("Authorization", basic(GAME, GAME_SECRET)).POST(HttpRequest.BodyPublishers.ofString(body)));
                assertThat(response.statusCode()).as(path + " " + type).isEqualTo(422);
                assertThat(response.body()).as(path + " " + type).isEqualTo(UNSUPPORTED);
                assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
                assertThat(response.headers().firstValue("Pragma")).hasValue("no-cache");
            }
        }
    }

    @Test
    void refusesAFormFieldGivenMoreThanOnce() {
        String twice = "{\"detail\":[{\"loc\":[\"body\",\"grant_type\"],\"msg\":\"Value error, given more than once, "
                + "expected once\",\"type\":\"value_error\"}]}";
        for (String body : List.of("grant_type=client_credentials&grant_type=x", "grant_type=x&grant_type=client_credentials",
                "grant_type=client_credentials&grant_type=client_credentials", "grant_type=client_credentials&grant%5Ftype=")) {
            assertUnprocessable(authorized().contentType(ContentType.URLENC).body(body), twice);
        }
        for (String path : List.of("/users/v2/oauth/revoke", "/users/v2/oauth/introspect")) {
            Response response = authorized().contentType(ContentType.URLENC).body("token=a&token=b").post(path);
            assertThat(response.statusCode()).isEqualTo(422);
            assertThat(response.asString()).isEqualTo(twice.replace("grant_type", "token"));
        }
    }

    /**
     * DESIGN §5: U+0000 is refused anywhere, keys included — also a key or form field name the endpoint ignores;
     * and a key named twice is refused (RFC 6749 §3.2: no parameter more than once; which value was meant cannot
     * be known).
     */
    @Test
    void refusesAKeyHoldingUPlus0000AndAKeyGivenTwice() {
        String nulKey = "{\"detail\":[{\"loc\":[\"body\",\"a\uFFFD\",\"[key]\"],\"msg\":\"String should not contain "
                + "U+0000 or an unpaired surrogate (U+D800..U+DFFF)\",\"type\":\"string_pattern_mismatch\"}]}";
        assertUnprocessable(authorized().contentType(ContentType.JSON)
                .body("{\"grant_type\":\"client_credentials\",\"a\\u0000\":1}"), nulKey);
        assertUnprocessable(authorized().contentType(ContentType.URLENC).body("a%00=1&grant_type=client_credentials"),
                nulKey);
        String twice = "{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"JSON decode error, a key is given twice in one "
                + "object\",\"type\":\"json_invalid\"}]}";
        assertUnprocessable(authorized().contentType(ContentType.JSON)
                .body("{\"grant_type\":\"x\",\"grant_type\":\"client_credentials\"}"), twice);
        assertUnprocessable(authorized().contentType(ContentType.JSON)
                .body("{\"grant_type\":\"client_credentials\",\"o\":{\"k\":1,\"k\":1}}"), twice);
    }

    /**
     * A form body is percent-encoded UTF-8 (as Basic credentials are): an escape that is not UTF-8 or not an escape,
     * or raw bytes that are not UTF-8, make it unreadable — in a field the endpoint ignores too — never U+FFFD in
     * their place nor the text kept as it came.
     */
    @Test
    void aFormThatIsNotPercentEncodedUtf8IsUnreadable() throws Exception {
        String unreadable = "{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"Invalid form body: not percent-encoded "
                + "UTF-8\",\"type\":\"json_invalid\"}]}";
        String grant = "grant_type=client_credentials";
        for (String body : List.of(grant + "&x=%FF", grant + "&x%FE=1", grant + "&x=%C0%80", grant + "&x=%ED%A0%80",
                grant + "%", grant + "&x=%zz", "x=%E2%82&" + grant)) {
            assertUnprocessable(authorized().contentType(ContentType.URLENC).body(body), unreadable);
        }
        // raw bytes, as the JDK client sends them: 0xFF is no UTF-8; "€" written out is
        HttpResponse<String> rawByte = send(form((grant + "&x=\u00ff").getBytes(StandardCharsets.ISO_8859_1)));
        assertThat(rawByte.statusCode()).isEqualTo(422);
        assertThat(rawByte.body()).isEqualTo(unreadable);
        assertThat(send(form((grant + "&x=%E2%82%AC&y=\u20ac").getBytes(StandardCharsets.UTF_8))).statusCode())
                .isEqualTo(200);
    }

    /**
     * A JSON body in UTF-16 or UTF-32, which Jackson would detect and read, is not UTF-8 JSON text (RFC 8259 §8.1):
     * refused as malformed UTF-8 is. A UTF-8 byte order mark before the body is ignored.
     */
    @Test
    void aJsonBodyInUtf16OrUtf32IsUnreadableAndAUtf8ByteOrderMarkIsIgnored() {
        String notUtf8 = "{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"JSON decode error, invalid UTF-8\","
                + "\"type\":\"json_invalid\"}]}";
        for (String charset : List.of("UTF-16LE", "UTF-16BE", "UTF-16", "UTF-32LE", "UTF-32BE")) {
            assertUnprocessable(authorized().contentType(ContentType.JSON).body(io.outpost.auth.TestClients.GRANT.getBytes(
                    java.nio.charset.Charset.forName(charset))), notUtf8);
        }
        byte[] bom = { (byte) 0xEF, (byte) 0xBB, (byte) 0xBF };
        byte[] grant = io.outpost.auth.TestClients.GRANT.getBytes(StandardCharsets.UTF_8);
        byte[] withBom = java.util.Arrays.copyOf(bom, bom.length + grant.length);
        System.arraycopy(grant, 0, withBom, bom.length, grant.length);
        authorized().contentType(ContentType.JSON).body(withBom).post(TOKEN_PATH).then().statusCode(200);
    }

    /** The 32-character limit of x-svc-client-addr counts characters of its UTF-8 text, not bytes. */
    @Test
    void theClientAddressIsCountedInCharacters() {
        String thirtyTwo = "é".repeat(32);
        authorized(new String(thirtyTwo.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1))
                .contentType(ContentType.JSON).body("{\"grant_type\":\"client_credentials\"}").post(TOKEN_PATH)
                .then().statusCode(200);
        assertUnprocessable(authorized(new String((thirtyTwo + "é").getBytes(StandardCharsets.UTF_8),
                StandardCharsets.ISO_8859_1)).contentType(ContentType.JSON).body("{\"grant_type\":\"client_credentials\"}"),
                "{\"detail\":[" + LONG_ADDRESS + "]}");
    }

    /**
     * A client address whose bytes are not well-formed UTF-8 is refused at the header on each OAuth endpoint, before
     * the credentials: it was read with U+FFFD in place of them, so that {@code FF} and {@code FE} were one address
     * to the failure throttle. {@code C0 80}, U+0000 to a lenient decoder, is refused the same way; a raw 0x00 byte
     * never reaches the endpoint (the HTTP decoder's bodiless 400).
     */
    @Test
    void aClientAddressThatIsNotUtf8IsRefusedAtTheHeader() throws IOException {
        String notUtf8 = "{\"detail\":[{\"loc\":[\"header\",\"x-svc-client-addr\"],\"msg\":\"Value error, not UTF-8\","
                + "\"type\":\"value_error\"}]}";
        String credentials = "Authorization: " + basic(GAME, GAME_SECRET);
        for (String[] call : List.of(new String[] { TOKEN_PATH, io.outpost.auth.TestClients.GRANT },
                new String[] { "/users/v2/oauth/revoke", "{\"token\":\"x\"}" },
                new String[] { "/users/v2/oauth/introspect", "{\"token\":\"x\"}" })) {
            for (String address : List.of("203.0.113.\u00ff", "a\u00c0\u0080")) {
                String answer = raw("POST " + call[0], List.of(credentials, "x-svc-client-addr: " + address), call[1]);
                assertThat(answer).as(call[0]).startsWith("HTTP/1.1 422 ")
                        .containsIgnoringCase("\r\ncache-control: no-store\r\n")
                        .endsWith("\r\n\r\n" + notUtf8);
            }
            assertThat(raw("POST " + call[0], List.of(credentials, "x-svc-client-addr: 203.0.113.9\u0000"), call[1]))
                    .as(call[0]).startsWith("HTTP/1.1 400 ").endsWith("\r\n\r\n");
        }
    }

    @Test
    void aJsonBodyPastTheParsersLimitsSaysSo() {
        String limits = "{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"JSON decode error, input exceeds the parser's "
                + "limits\",\"type\":\"json_invalid\"}]}";
        assertUnprocessable(authorized().contentType(ContentType.JSON).body("{\"" + "k".repeat(60_000) + "\":1}"), limits);
        assertUnprocessable(authorized().contentType(ContentType.JSON).body("[".repeat(1_500) + "]".repeat(1_500)),
                limits);
    }

    @Test
    void otherMethodsAre405WithTheAllowOfThePathAndOptionsTellsTheTruth() throws Exception {
        for (String path : List.of(TOKEN_PATH, "/users/v2/oauth/revoke", "/users/v2/oauth/introspect")) {
            for (String method : List.of("GET", "HEAD", "PUT", "DELETE")) {
                HttpResponse<String> response = send(HttpRequest.newBuilder(uri(path))
                        .method(method, HttpRequest.BodyPublishers.noBody()));
                assertThat(response.statusCode()).as(method + " " + path).isEqualTo(405);
                assertThat(response.headers().firstValue("Allow")).as(method + " " + path).hasValue("POST, OPTIONS");
                assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
                assertThat(response.headers().firstValue("Pragma")).hasValue("no-cache");
                if (!method.equals("HEAD")) {
                    assertThat(response.body()).isEqualTo("{\"error_code\":\"method_not_allowed\",\"desc\":\"Method Not Allowed\"}");
                }
            }
            HttpResponse<String> options = send(HttpRequest.newBuilder(uri(path))
                    .method("OPTIONS", HttpRequest.BodyPublishers.noBody()));
            assertThat(options.statusCode()).isEqualTo(200);
            assertThat(options.headers().firstValue("Allow")).as(path).hasValue("POST, OPTIONS");
        }
        HttpResponse<String> keys = send(HttpRequest.newBuilder(uri("/users/v1/publickeys"))
                .method("POST", HttpRequest.BodyPublishers.noBody()));
        assertThat(keys.statusCode()).isEqualTo(405);
        assertThat(keys.headers().firstValue("Allow")).hasValue("GET, HEAD, OPTIONS");
        assertThat(send(HttpRequest.newBuilder(uri("/users/v1/publickeys")).method("HEAD",
                HttpRequest.BodyPublishers.noBody())).statusCode()).isEqualTo(200);
    }

    @Test
    void refusesAClientAddressLongerThan32Characters() {
        String address33 = "a".repeat(33);
        assertUnprocessable(authorized(address33).contentType(ContentType.JSON)
                .body("{\"grant_type\":\"client_credentials\"}"), "{\"detail\":[" + LONG_ADDRESS + "]}");
        authorized("b".repeat(32)).contentType(ContentType.JSON).body("{\"grant_type\":\"client_credentials\"}")
                .post(TOKEN_PATH).then().statusCode(200);
    }

    @Test
    void reportsEveryFaultAtOnce() {
        assertUnprocessable(authorized("c".repeat(40)).contentType(ContentType.JSON).body("{\"grant_type\":\"implicit\"}"),
                "{\"detail\":[" + LONG_ADDRESS + ",{\"loc\":[\"body\",\"grant_type\"],"
                        + "\"msg\":\"Input should be 'client_credentials'\",\"type\":\"literal_error\"}]}");
    }

    @Test
    void checksTheInputBeforeTheCredentials() {
        assertUnprocessable(fromOwnAddress().contentType(ContentType.JSON).body("{}"), MISSING_GRANT);
        assertUnprocessable(fromOwnAddress().header("Authorization", basic(GAME, "wrong")).contentType(ContentType.JSON),
                MISSING_BODY);
    }

    private static RequestSpecification authorized() {
        return fromOwnAddress().header("Authorization", basic(GAME, GAME_SECRET));
    }

    private static RequestSpecification authorized(String address) {
        return io.restassured.RestAssured.given().header("x-svc-client-addr", address)
                .header("Authorization", basic(GAME, GAME_SECRET));
    }

    private static void assertUnprocessable(RequestSpecification request, String body) {
        Response response = request.post(TOKEN_PATH);
        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(response.contentType()).startsWith("application/json");
        assertThat(response.asString()).isEqualTo(body);
        assertThat(response.header("Cache-Control")).isEqualTo("no-store");
        assertThat(response.header("Pragma")).isEqualTo("no-cache");
    }

    /** The raw answer to {@code requestLine} with these header lines, sent on a socket of its own. */
    static String raw(String requestLine, List<String> headers, String body) throws IOException {
        try (Socket socket = new Socket("localhost", RestAssured.port)) {
            OutputStream out = socket.getOutputStream();
            out.write((requestLine + " HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: "
                    + io.outpost.auth.TestClients.ownAddress() + "\r\n" + String.join("\r\n", headers) + "\r\nContent-Length: " + body.length()
                    + "\r\nConnection: close\r\n\r\n" + body).getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static HttpRequest.Builder form(byte[] body) {
        return HttpRequest.newBuilder(uri(TOKEN_PATH)).header("Content-Type", "application/x-www-form-urlencoded")
                .header("Authorization", basic(GAME, GAME_SECRET)).POST(HttpRequest.BodyPublishers.ofByteArray(body));
    }

    static URI uri(String path) {
        return URI.create("http://localhost:" + RestAssured.port + path);
    }

    static HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(request.header("X-Forwarded-For", io.outpost.auth.TestClients.ownAddress())
                .build(), HttpResponse.BodyHandlers.ofString());
    }
}
