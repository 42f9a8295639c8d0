package io.outpost.auth.rest;

import static io.outpost.auth.TestClients.GRANT;
import static io.outpost.auth.TestClients.TOKEN_PATH;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

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
}
