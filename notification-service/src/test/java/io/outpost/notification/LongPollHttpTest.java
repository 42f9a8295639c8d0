package io.outpost.notification;

import static io.outpost.notification.Fixture.reader;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.outpost.notification.store.NotificationStore;
import io.outpost.testsupport.IngressHeaders;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;

/**
 * The long poll's HTTP surface, as a client sees it: it is served by a Vert.x route below Quarkus REST
 * (docs/notifications.md), and answers exactly as the endpoint did when Quarkus REST served it — content types,
 * methods, the path with a trailing slash, how the token is read from headers and cookies, the challenge on a
 * refusal.
 */
@QuarkusTest
class LongPollHttpTest {

    @Inject
    NotificationStore store;

    private UUID player;
    private String token;

    @BeforeEach
    void oneNotification() {
        player = UUID.randomUUID();
        token = reader(player);
        Fixture.store(store, player, "h", 1);
    }

    @Test
    void pageIsJsonInUtf8() {
        given().header("Authorization", "Bearer " + token).when().get(Fixture.LP + "?offset_reset_strategy=earliest")
                .then().statusCode(200).header("Content-Type", "application/json;charset=UTF-8")
                .body("notifications.notification_id", is(java.util.List.of("h-0")))
                .body("notifications[0].message", is("message h-0")).body("cursor", is("h-0"));
    }

    @Test
    void trailingSlashIsTheSamePoll() {
        given().header("Authorization", "Bearer " + token).when()
                .get(Fixture.LP + "/?offset_reset_strategy=earliest").then().statusCode(200)
                .body("cursor", is("h-0"));
    }

    @Test
    void refusalsAreJsonWithTheirHeaders() {
        given().when().get(Fixture.LP).then().statusCode(403).header("Content-Type", "application/json")
                .header("WWW-Authenticate", "Bearer realm=\"outpost\"")
                .body(is("{\"auth_success\":false,\"error_code\":\"auth_malformed_access\","
                        + "\"desc\":\"No access token was presented\"}"));
        given().header("Authorization", "Bearer " + token).when().get(Fixture.LP + "?deadline=901").then()
                .statusCode(422).header("Content-Type", "application/json")
                .body("detail[0].loc", is(java.util.List.of("query", "deadline")))
                .body("detail[0].type", is("less_than_equal"));
    }

    @Test
    void headIsThePollWithoutItsBody() {
        given().header("Authorization", "Bearer " + token).when()
                .head(Fixture.LP + "?offset_reset_strategy=earliest").then().statusCode(200)
                .header("Content-Type", "application/json;charset=UTF-8").body(emptyString());
    }

    @Test
    void optionsListsTheMethods() {
        given().when().options(Fixture.LP).then().statusCode(200).header("Allow", "GET, HEAD, OPTIONS")
                .body(emptyString());
    }

    @ParameterizedTest
    @ValueSource(strings = { "POST", "PUT", "DELETE", "PATCH" })
    void otherMethodsAre405(String method) {
        given().header("Authorization", "Bearer " + token).when().request(method, Fixture.LP).then().statusCode(405)
                .header("Allow", "GET, HEAD, OPTIONS").header("Content-Type", "application/json")
                .body(is("{\"error_code\":\"method_not_allowed\",\"desc\":\"Method Not Allowed\"}"));
    }

    @Test
    void theTokenIsReadFromTheLastAuthorizationCookie() {
        // several Cookie headers and cookies: the last one named Authorization counts, its value URL-decoded
        given().header("Cookie", "Authorization=bearer%20not-this-one; theme=dark")
                .header("Cookie", "a=b; Authorization=bearer%20" + token).when()
                .get(Fixture.LP + "?offset_reset_strategy=earliest").then().statusCode(200).body("cursor", is("h-0"));
        given().header("Cookie", "Authorization=bearer%20" + token + "; Authorization=bearer%20x").when()
                .get(Fixture.LP + "?deadline=0").then().statusCode(403).body("error_code", is("auth_not_jwt"));
        // a header wins over the cookie; a cookie of another name is no token
        given().header("Authorization", "Bearer " + token).header("Cookie", "Authorization=bearer%20x").when()
                .get(Fixture.LP + "?deadline=0").then().statusCode(200);
        given().header("Cookie", "authorization=bearer%20" + token).when().get(Fixture.LP + "?deadline=0").then()
                .statusCode(403).body("error_code", is("auth_malformed_access"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "bearer%zz", "bearer%", "%E0%A4%A", "bearer%20%FF", "bearer+x%C0%80" })
    void aCookieThatIsNotUrlEncodedIsMalformedAccessNotA500(String value) {
        given().header("Cookie", "Authorization=" + value).when().get(Fixture.LP + "?deadline=0").then()
                .statusCode(403).body("error_code", is("auth_malformed_access"))
                .body("desc", is("The Authorization cookie is not URL-encoded"));
    }

    @Test
    void severalAuthorizationHeadersAreOneValue() {
        // read as Quarkus REST reads them: joined by commas, so not one bearer token
        given().header("Authorization", "Bearer " + token).header("Authorization", "Bearer " + token).when()
                .get(Fixture.LP + "?deadline=0").then().statusCode(403).body("error_code", is("auth_not_jwt"))
                .header("WWW-Authenticate",
                        org.hamcrest.Matchers.startsWith("Bearer realm=\"outpost\", error=\"invalid_token\""));
    }

    @Test
    void whitespaceAroundTheTokenIsIgnoredAndTheSchemeIsCaseInsensitive() {
        given().header("Authorization", "  bEaReR   " + token + "  ").when().get(Fixture.LP + "?deadline=0").then()
                .statusCode(200).header("WWW-Authenticate", nullValue());
    }

    /**
     * A poll's request headers are dropped once its token is read (LongPollRoute), so what was decided from them must
     * stand: on HTTP/1.1 the connection serves the next poll — one held first — unless a request said {@code
     * Connection: close}; on HTTP/1.0 only with {@code Connection: keep-alive}. A proxy's and a game engine's
     * headers change nothing.
     */
    @Test
    void theConnectionIsKeptOrClosedAsEachRequestAsked() throws IOException {
        String headers = "Host: localhost\r\nAuthorization: Bearer " + token + "\r\n" + IngressHeaders.lines();
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            write(out, "GET " + Fixture.LP + "?offset_reset_strategy=earliest HTTP/1.1\r\n" + headers + "\r\n");
            Answer first = Answer.read(in);
            assertThat(first.status()).isEqualTo("HTTP/1.1 200 OK");
            assertThat(first.body()).contains("\"notification_id\":\"h-0\"").endsWith("\"cursor\":\"h-0\"}");
            assertThat(first.headers()).doesNotContainKey("connection");
            // held for its deadline, then answered empty on the same connection
            write(out, "GET " + Fixture.LP + "?deadline=1&exclude_before=h-0 HTTP/1.1\r\n" + headers + "\r\n");
            Answer held = Answer.read(in);
            assertThat(held.status()).isEqualTo("HTTP/1.1 200 OK");
            assertThat(held.body()).isEqualTo("{\"notifications\":[],\"cursor\":\"h-0\"}");
            write(out, "GET " + Fixture.LP + "?deadline=1&exclude_before=h-0 HTTP/1.1\r\n" + headers
                    + "Connection: close\r\n\r\n");
            Answer last = Answer.read(in);
            assertThat(last.status()).isEqualTo("HTTP/1.1 200 OK");
            assertThat(last.headers()).containsEntry("connection", "close");
            assertThat(in.read()).as("closed by the service").isEqualTo(-1);
        }
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            write(out, "GET " + Fixture.LP + "?deadline=1&exclude_before=h-0 HTTP/1.0\r\n" + headers
                    + "Connection: keep-alive\r\n\r\n");
            Answer kept = Answer.read(in);
            assertThat(kept.status()).isEqualTo("HTTP/1.0 200 OK");
            assertThat(kept.headers()).containsEntry("connection", "keep-alive");
            assertThat(kept.body()).isEqualTo("{\"notifications\":[],\"cursor\":\"h-0\"}");
            write(out, "GET " + Fixture.LP + "?deadline=1&exclude_before=h-0 HTTP/1.0\r\n" + headers + "\r\n");
            Answer closing = Answer.read(in);
            assertThat(closing.status()).isEqualTo("HTTP/1.0 200 OK");
            assertThat(in.read()).as("closed by the service").isEqualTo(-1);
        }
    }

    /**
     * The route runs ahead of Quarkus's handlers, so it checks a declared body size itself, as Quarkus does on its
     * routes: over {@code quarkus.http.limits.max-body-size} (1 MiB) a 413 without a body, and the connection
     * closed before the body is read; a small body is not read and changes nothing.
     */
    @Test
    void aDeclaredBodyOverTheLimitIsRefused413AndASmallOneIsIgnored() throws IOException {
        String headers = "Host: localhost\r\nAuthorization: Bearer " + token + "\r\n";
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            write(out, "GET " + Fixture.LP + "?offset_reset_strategy=earliest HTTP/1.1\r\n" + headers
                    + "Content-Length: 5\r\n\r\nhello");
            Answer small = Answer.read(in);
            assertThat(small.status()).isEqualTo("HTTP/1.1 200 OK");
            assertThat(small.body()).contains("\"notification_id\":\"h-0\"");
            write(out, "GET " + Fixture.LP + "?offset_reset_strategy=earliest HTTP/1.1\r\n" + headers
                    + "Content-Length: " + (1024 * 1024 + 1) + "\r\n\r\n");
            Answer refused = Answer.read(in);
            assertThat(refused.status()).isEqualTo("HTTP/1.1 413 Request Entity Too Large");
            assertThat(refused.headers()).containsEntry("connection", "close").containsEntry("content-length", "0");
            assertThat(in.read()).as("closed by the service").isEqualTo(-1);
        }
    }

    /** A connection to the service, whose reads give up after 20 s. */
    private static Socket connect() throws IOException {
        Socket socket = new Socket("localhost", RestAssured.port);
        socket.setSoTimeout(20_000);
        return socket;
    }

    private static void write(OutputStream out, String request) throws IOException {
        out.write(request.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** One answer read off a connection: its status line, headers (names in lower case) and Content-Length body. */
    private record Answer(String status, Map<String, String> headers, String body) {

        static Answer read(InputStream in) throws IOException {
            String status = line(in);
            Map<String, String> headers = new HashMap<>();
            for (String line = line(in); !line.isEmpty(); line = line(in)) {
                int colon = line.indexOf(':');
                headers.put(line.substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT),
                        line.substring(colon + 1).trim());
            }
            byte[] body = in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
            return new Answer(status, headers, new String(body, StandardCharsets.UTF_8));
        }

        private static String line(InputStream in) throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            for (int b = in.read(); b != '\n'; b = in.read()) {
                if (b < 0) {
                    throw new IOException("the connection closed mid-answer");
                }
                if (b != '\r') {
                    line.write(b);
                }
            }
            return line.toString(StandardCharsets.ISO_8859_1);
        }
    }
}
