package io.outpost.auth.edge;

import static io.outpost.auth.TestClients.adminApi;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.hasItem;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.outpost.auth.GatewayInFront;
import io.outpost.auth.TestClients;
import io.outpost.auth.rest.AdminListener;
import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;

/**
 * Client administration is served on its own port only (docs/deploy.md, "The admin API"): the public port, and so
 * the gateway or an ingress in front of it, answers every admin path 404 — with an admin token, with any spelling of
 * the path, but those with more than one reading, which every path is refused for (422; the gateway's 400) — and
 * the admin port answers nothing but the admin API.
 */
@QuarkusTest
class AdminExposureTest {

    private static final String NOT_FOUND = "{\"error_code\":\"not_found\",\"desc\":\"No such resource\"}";
    private static final List<String> SPELLINGS = List.of("/users/v1/admin/clients", "/users/v1/admin/clients/",
            "/users/v1/admin", "/users/v1/admin/clients/" + TestClients.GAME, "/users/v1/admin;x=1/clients",
            "/users/v1//admin/clients", "//users/v1/admin/clients");
    /** With more than one reading (docs/architecture.md, "Request paths"): refused, whatever path they spell. */
    private static final Map<String, String> REFUSED_SPELLINGS = Map.of("/users/v1/./admin/clients", "dot-segment",
            "/users/v1/x/../admin/clients", "dot-segment", "/users/v1/%2e%2e/v1/admin/clients", "dot-segment",
            "/users/v1/admin%2Fclients", "encoded slash");

    private String adminToken;

    @BeforeEach
    void adminToken() {
        adminToken = TestClients.token(TestClients.ADMIN, TestClients.ADMIN_SECRET);
    }

    @Test
    void theAdminPortServesTheAdminApi() {
        adminApi().auth().oauth2(adminToken).get("/users/v1/admin/clients").then().statusCode(200)
                .body("clients.client_id", hasItem(TestClients.ADMIN));
    }

    @Test
    void thePublicPortAnswersEveryAdminPath404EvenToAnAdmin() {
        for (String path : SPELLINGS) {
            assertNotFound(given().auth().oauth2(adminToken), "GET", path);
            assertNotFound(given(), "GET", path);
            assertNotFound(given().auth().oauth2(adminToken).contentType("application/json").body("{}"), "POST", path);
        }
        assertNotFound(given().auth().oauth2(adminToken), "POST", "/users/v1/admin/clients/" + TestClients.GAME + "/disable");
        assertNotFound(given().auth().oauth2(adminToken), "DELETE", "/users/v1/admin/clients");
        REFUSED_SPELLINGS.forEach((path, fault) -> assertRefused(given().auth().oauth2(adminToken), path, 422,
                "{\"detail\":[{\"loc\":[\"path\"],\"msg\":\"Invalid path: " + fault + "\",\"type\":\"json_invalid\"}]}"));
    }

    @Test
    void theGatewayDoesNotReachTheAdminApi() {
        String gateway = GatewayInFront.url();
        for (String path : SPELLINGS) {
            assertNotFound(given().auth().oauth2(adminToken), "GET", gateway + path);
        }
        REFUSED_SPELLINGS.forEach((path, fault) -> assertRefused(given().auth().oauth2(adminToken), gateway + path, 400,
                "{\"error_code\":\"invalid_path\",\"desc\":\"Invalid path: " + fault + "\"}"));
    }

    @Test
    void theAdminPortServesNothingOfThePublicApi() {
        for (String path : List.of("/users/v2/oauth/token", "/users/v1/publickeys", "/.well-known/openid-configuration",
                "/users/v1/adminx")) {
            assertNotFound(adminApi(), "GET", path);
        }
        assertNotFound(adminApi().header("Authorization", TestClients.basic(TestClients.ADMIN, TestClients.ADMIN_SECRET))
                .contentType("application/json").body(TestClients.GRANT), "POST", "/users/v2/oauth/token");
    }

    /**
     * The admin port speaks HTTP/1.1 only, as the public port does (docs/architecture.md, "HTTP/1.1 only"): HTTP/2 in
     * clear text handed header values to the endpoints unchecked. A preface with prior knowledge is answered in
     * HTTP/1 (where an HTTP/2 server sends its SETTINGS frame), and an {@code Upgrade: h2c} is not taken (no 101).
     */
    @Test
    void theAdminPortSpeaksHttp11Only() throws IOException {
        int port = Arc.container().instance(AdminListener.class).get().port();
        ByteArrayOutputStream preface = new ByteArrayOutputStream();
        preface.writeBytes("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        preface.writeBytes(new byte[] { 0, 0, 0, 0x4, 0, 0, 0, 0, 0 }); // an empty SETTINGS frame
        assertThat(firstLine(port, preface.toByteArray())).startsWith("HTTP/").doesNotContain("\u0000");
        String upgrade = "GET /users/v1/admin/clients HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n";
        assertThat(firstLine(port, upgrade.getBytes(StandardCharsets.ISO_8859_1))).isEqualTo("HTTP/1.1 403 Forbidden");
    }

    /** The first line of the server's answer to {@code request}, or what it sent before closing or 10 s of silence. */
    private static String firstLine(int port, byte[] request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request);
            StringBuilder line = new StringBuilder();
            InputStream in = socket.getInputStream();
            try {
                for (int b = in.read(); b >= 0 && b != '\r' && line.length() < 200; b = in.read()) {
                    line.append((char) b);
                }
            } catch (SocketTimeoutException silent) { // an HTTP/2 server: its SETTINGS frame, then it waits
                line.append("<silence>");
            }
            return line.toString();
        }
    }

    private static void assertRefused(RequestSpecification request, String path, int status, String body) {
        var response = request.urlEncodingEnabled(false).get(path);
        assertThat(response.statusCode()).as(path).isEqualTo(status);
        assertThat(response.asString()).as(path).isEqualTo(body);
    }

    private static void assertNotFound(RequestSpecification request, String method, String path) {
        var response = request.urlEncodingEnabled(false).request(method, path);
        assertThat(response.statusCode()).as("%s %s", method, path).isEqualTo(404);
        assertThat(response.asString()).as("%s %s", method, path).isEqualTo(NOT_FOUND);
    }
}
