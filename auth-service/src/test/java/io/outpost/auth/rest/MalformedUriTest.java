package io.outpost.auth.rest;

import static io.outpost.auth.TestClients.GRANT;
import static io.outpost.auth.TestClients.TOKEN_PATH;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.outpost.auth.TestClients;
import io.outpost.testsupport.RawHttp;
import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;

/** A malformed URI is DESIGN §5's 422 here too, not Quarkus's bodiless 400 (service-support's RequestUriCheck). */
@QuarkusTest
class MalformedUriTest {

    private static String raw(String requestLine, String body) throws IOException {
        try (Socket socket = new Socket("localhost", RestAssured.port)) {
            OutputStream out = socket.getOutputStream();
            out.write((requestLine + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: "
                    + body.length() + "\r\nConnection: close\r\n\r\n" + body).getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aMalformedQueryStringIs422AtQueryOnTheTokenEndpointAndTheKeySet() throws IOException {
        String refused = "\r\n\r\n{\"detail\":[{\"loc\":[\"query\"],\"msg\":\"Invalid query string: Malformed escape pair\","
                + "\"type\":\"json_invalid\"}]}";
        assertThat(raw("POST " + TOKEN_PATH + "?x=%zz", GRANT)).startsWith("HTTP/1.1 422 ").endsWith(refused);
        assertThat(raw("GET /users/v1/publickeys?%", "")).startsWith("HTTP/1.1 422 ").endsWith(refused);
    }

    /** Under the OAuth prefix too, whose own headers are decided from the path, before any endpoint is matched. */
    @Test
    void aMalformedPathIs422AtPathUnderEveryPrefix() throws IOException {
        String refused = "\r\n\r\n{\"detail\":[{\"loc\":[\"path\"],\"msg\":\"Invalid path: Malformed escape pair\","
                + "\"type\":\"json_invalid\"}]}";
        for (String path : new String[] { "/users/v2/oauth/%zz", TOKEN_PATH + "%", "/users/v1/admin/clients/%zz",
                "/users/v1/publickeys/%zz" }) {
            assertThat(raw("POST " + path, GRANT)).as(path).startsWith("HTTP/1.1 422 ").endsWith(refused);
        }
    }

    /**
     * An escape that is well-formed but not UTF-8 is refused as a malformed escape pair is: 422 at {@code ["query"]},
     * never read with U+FFFD in its place — on the token endpoint and the key set, and on the admin API, whose
     * {@code after} is a client id ({@code %FF} and {@code %FE} would have been one id).
     */
    @Test
    void anEscapeThatIsNotUtf8Is422AtQueryOnThePublicAndTheAdminPort() throws IOException {
        String refused = "\r\n\r\n{\"detail\":[{\"loc\":[\"query\"],\"msg\":\"Invalid query string: not UTF-8\","
                + "\"type\":\"json_invalid\"}]}";
        for (String query : new String[] { "x=%FF", "x=%C0%80", "x=%ED%A0%80", "x=%E2%82" }) {
            assertThat(raw("POST " + TOKEN_PATH + "?" + query, GRANT)).as(query).startsWith("HTTP/1.1 422 ")
                    .endsWith(refused);
            assertThat(raw("GET /users/v1/publickeys?" + query, "")).as(query).startsWith("HTTP/1.1 422 ")
                    .endsWith(refused);
        }
        int admin = Arc.container().instance(AdminListener.class).get().port();
        String bearer = "Authorization: Bearer " + TestClients.token(TestClients.ADMIN, TestClients.ADMIN_SECRET)
                + "\r\n";
        for (String query : new String[] { "after=%FF", "after=a%C0%80", "after=%ED%A0%80", "limit=1%E2%82" }) {
            assertThat(RawHttp.get(admin, "/users/v1/admin/clients?" + query, bearer)).as(query)
                    .startsWith("HTTP/1.1 422 ").endsWith(refused);
        }
        assertThat(RawHttp.get(admin, "/users/v1/admin/clients?limit=1&after=%C3%A9", bearer))
                .startsWith("HTTP/1.1 200 ");
        assertThat(raw("GET /users/v1/publickeys?x=%C3%A9%F0%9F%98%80", "")).startsWith("HTTP/1.1 200 ");
    }
}
