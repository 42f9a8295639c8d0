package io.outpost.auth.edge;

import static io.outpost.auth.TestClients.ADMIN;
import static io.outpost.auth.TestClients.ADMIN_SECRET;
import static io.outpost.auth.TestClients.adminApi;
import static io.outpost.auth.TestClients.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/**
 * A page an administrator visits cannot change anything through their {@code Authorization} cookie (cross-site
 * request forgery on the admin port): every call that changes something takes the token from the header only.
 */
@QuarkusTest
class AdminCookieTest {

    private static final String CLIENTS = "/users/v1/admin/clients";
    private static final String REFUSED = "{\"auth_success\":false,\"error_code\":\"auth_malformed_access\","
            + "\"desc\":\"A change through the admin API takes its access token from the Authorization header only\"}";

    private String adminToken;
    private String id;

    @BeforeEach
    void aClient() {
        adminToken = token(ADMIN, ADMIN_SECRET);
        id = "csrf-" + UUID.randomUUID().toString().substring(0, 8);
        byHeader().contentType(ContentType.JSON).body(Map.of("client_id", id, "permissions", List.of()))
                .post(CLIENTS).then().statusCode(201);
    }

    @Test
    void changesRefuseTheCookieAndChangeNothing() {
        for (Response response : List.of(byCookie().post(CLIENTS + "/" + id + "/disable"),
                byCookie().post(CLIENTS + "/" + id + "/secret"),
                byCookie().post(CLIENTS + "/" + id + "/revoke-tokens"),
                byCookie().post(CLIENTS + "/" + id + "/end-previous-secret"),
                byCookie().contentType(ContentType.JSON).body("{\"permissions\":[\"auth:clients:admin\"]}")
                        .patch(CLIENTS + "/" + id),
                byCookie().contentType(ContentType.JSON).body("{\"client_id\":\"csrf-made-" + id + "\"}").post(CLIENTS),
                byCookie().contentType(ContentType.JSON).body("{\"permissions\":[\"auth:clients:admin\"]}")
                        .put(CLIENTS + "/" + id + "/permissions"))) {
            assertThat(response.statusCode()).isEqualTo(403);
            assertThat(response.asString()).isEqualTo(REFUSED);
        }
        byHeader().get(CLIENTS + "/" + id).then().statusCode(200).body("enabled", equalTo(true))
                .body("permissions", equalTo(List.of())).body("tokens_revoked_before", equalTo(null));
        byHeader().get(CLIENTS + "/csrf-made-" + id).then().statusCode(404);
    }

    @Test
    void readsStillTakeTheCookieAndChangesTheHeader() {
        byCookie().get(CLIENTS + "/" + id).then().statusCode(200).body("client_id", equalTo(id));
        byHeader().post(CLIENTS + "/" + id + "/disable").then().statusCode(200).body("enabled", equalTo(false));
    }

    private RequestSpecification byCookie() {
        return adminApi().cookie("Authorization", "bearer " + adminToken);
    }

    private RequestSpecification byHeader() {
        return adminApi().auth().oauth2(adminToken);
    }
}
