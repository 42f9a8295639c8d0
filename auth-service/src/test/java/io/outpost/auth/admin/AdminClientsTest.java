package io.outpost.auth.admin;

import static io.outpost.auth.TestClients.ADMIN;
import static io.outpost.auth.TestClients.ADMIN_SECRET;
import static io.outpost.auth.TestClients.GAME;
import static io.outpost.auth.TestClients.GAME_SECRET;
import static io.outpost.auth.TestClients.TOKEN_PATH;
import static io.outpost.auth.TestClients.adminApi;
import static io.outpost.auth.TestClients.token;
import static io.outpost.auth.TestClients.tokenRequest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.outpost.auth.JwtTestSupport;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/** The client-admin surface: every call, with a token holding {@code auth:clients:admin}. */
@QuarkusTest
class AdminClientsTest {

    static final String CLIENTS = "/users/v1/admin/clients";

    @jakarta.inject.Inject
    io.outpost.auth.service.SecretHasher hasher;

    private String adminToken;
    private String id;

    @BeforeEach
    void adminAndAFreshId() {
        adminToken = token(ADMIN, ADMIN_SECRET);
        id = "adm-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void createAnswersTheSecretOnceAndTheClientGetsTokens() throws Exception {
        String player = UUID.randomUUID().toString();
        Response created = admin().contentType(ContentType.JSON)
                .body(Map.of("client_id", id, "permissions", List.of("sandbox:config:view"), "player_uuid", player))
                .post(CLIENTS);
        created.then().statusCode(201)
                .header("Cache-Control", "no-store")
                .header("Location", equalTo("/users/v1/admin/clients/" + id))
                .body("client_id", equalTo(id))
                .body("client_secret", matchesPattern("[A-Za-z0-9_-]{43}"))
                .body("permissions", equalTo(List.of("sandbox:config:view")))
                .body("player_uuid", equalTo(player))
                .body("enabled", equalTo(true))
                .body("$", hasKey("created_at")).body("$", hasKey("updated_at"));
        String secret = created.path("client_secret");

        var claims = JwtTestSupport.verify(token(id, secret), JwtTestSupport.publishedKeys());
        assertThat(claims.getSubject()).isEqualTo(id);
        assertThat(claims.getStringClaim("player_uuid")).isEqualTo(player);
        assertThat(claims.getStringListClaim("permissions")).containsExactly("sandbox:config:view");

        String read = admin().get(CLIENTS + "/" + id).then().statusCode(200)
                .body("client_id", equalTo(id)).body("$", not(hasKey("client_secret"))).extract().asString();
        assertThat(read).doesNotContain(secret).doesNotContain("pbkdf2");
    }

    @Test
    void locationNeverTakesItsHostFromRequestHeaders() {
        admin().header("X-Forwarded-Host", "evil.example").header("X-Forwarded-Proto", "https")
                .header("Forwarded", "host=evil.example;proto=https").contentType(ContentType.JSON)
                .body(Map.of("client_id", id)).post(CLIENTS)
                .then().statusCode(201).header("Location", equalTo("/users/v1/admin/clients/" + id));
    }

    @Test
    void aPathIdHoldingNulIs422BeforeAnyQueryOrKdf() {
        String refused = "{\"detail\":[{\"loc\":[\"path\",\"id\"],\"msg\":\"String should not contain U+0000 or an "
                + "unpaired surrogate (U+D800..U+DFFF)\",\"type\":\"string_pattern_mismatch\"}]}";
        long before = hasher.kdfRuns();
        for (Response response : List.of(raw().get(CLIENTS + "/%00"), raw().get(CLIENTS + "/x%00"),
                raw().post(CLIENTS + "/%00/enable"), raw().post(CLIENTS + "/%00/disable"),
                raw().post(CLIENTS + "/%00/secret"), raw().post(CLIENTS + "/%00/revoke-tokens"),
                raw().contentType(ContentType.JSON).body("{\"permissions\":[]}").put(CLIENTS + "/%00/permissions"))) {
            assertThat(response.statusCode()).isEqualTo(422);
            assertThat(response.asString()).isEqualTo(refused);
        }
        assertThat(hasher.kdfRuns() - before).isZero();
        // with a faulty body too: every fault at once
        assertThat(raw().contentType(ContentType.JSON).body("{}").put(CLIENTS + "/%00/permissions").asString())
                .isEqualTo(refused.replace("]}", ",{\"loc\":[\"body\",\"permissions\"],\"msg\":\"Field required\","
                        + "\"type\":\"missing\"}]}"));
    }

    @Test
    void textTheStoreCannotKeepAndTooManyPermissionsHaveTheirOwnTypes() {
        String body = admin().contentType(ContentType.JSON)
                .body("{\"client_id\":\"x\\u0000\",\"permissions\":[\"a\\u0000\",\"b\\ud800\"],\"player_uuid\":\"\\u0000\"}")
                .post(CLIENTS).then().statusCode(422).extract().asString();
        String nul = "\"msg\":\"String should not contain U+0000 or an unpaired surrogate (U+D800..U+DFFF)\","
                + "\"type\":\"string_pattern_mismatch\"}";
        assertThat(body).isEqualTo("{\"detail\":[{\"loc\":[\"body\",\"client_id\"]," + nul
                + ",{\"loc\":[\"body\",\"permissions\",0]," + nul + ",{\"loc\":[\"body\",\"permissions\",1]," + nul
                + ",{\"loc\":[\"body\",\"player_uuid\"]," + nul + "]}");
        List<String> many = java.util.stream.IntStream.range(0, 101).mapToObj(i -> "p" + i).toList();
        String tooMany = "{\"detail\":[{\"loc\":[\"body\",\"permissions\"],\"msg\":\"List should have at most 100 "
                + "items\",\"type\":\"too_long\"}]}";
        assertThat(admin().contentType(ContentType.JSON).body(Map.of("permissions", many)).post(CLIENTS)
                .then().statusCode(422).extract().asString()).isEqualTo(tooMany);
        assertThat(admin().contentType(ContentType.JSON).body(Map.of("permissions", many))
                .put(CLIENTS + "/" + GAME + "/permissions").then().statusCode(422).extract().asString()).isEqualTo(tooMany);
    }

    @Test
    void bodiesInAnotherContentTypeAre422LikeUnreadableJson() throws Exception {
        String refused = "{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"Unsupported content type: send application/json\","
                + "\"type\":\"json_invalid\"}]}";
        for (String type : List.of("text/plain", "application/x-www-form-urlencoded", "foo", "a/b/c",
                "application/json, text/plain")) {
            for (String[] call : new String[][] { { "POST", CLIENTS, "{}" },
                    { "PUT", CLIENTS + "/" + GAME + "/permissions", "{\"permissions\":[]}" } }) {
                // the JDK's client: RestAssured will not send a body in a type it cannot encode
                HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                        "http://localhost:" + io.quarkus.arc.Arc.container().instance(io.outpost.auth.rest.AdminListener.class)
                                .get().port() + call[1]))
                        .header("Authorization", "Bearer " + adminToken).header("Content-Type", type)
                        .method(call[0], HttpRequest.BodyPublishers.ofString(call[2])).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).as(type + " " + call[0]).isEqualTo(422);
                assertThat(response.body()).as(type + " " + call[0]).isEqualTo(refused);
            }
        }
    }

    @Test
    void otherMethodsAre405WithTheAllowOfThePath() {
        Response disable = admin().get(CLIENTS + "/" + GAME + "/disable");
        assertThat(disable.statusCode()).isEqualTo(405);
        assertThat(disable.header("Allow")).isEqualTo("POST, OPTIONS");
        Response one = admin().delete(CLIENTS + "/" + GAME);
        assertThat(one.statusCode()).isEqualTo(405);
        assertThat(one.header("Allow")).isEqualTo("GET, HEAD, PATCH, OPTIONS");
        assertThat(admin().options(CLIENTS + "/" + GAME + "/permissions").header("Allow")).isEqualTo("PUT, OPTIONS");
        assertThat(admin().options(CLIENTS).header("Allow")).isEqualTo("GET, HEAD, POST, OPTIONS");
    }

    @Test
    void createPicksAnIdWhenNoneIsGiven() {
        String picked = admin().contentType(ContentType.JSON).body("{}").post(CLIENTS)
                .then().statusCode(201).body("permissions", equalTo(List.of())).extract().path("client_id");
        assertThat(picked).matches("client-[a-z0-9]{16}");
    }

    @Test
    void refusesAnIdThatExists() {
        create(id, List.of());
        String body = admin().contentType(ContentType.JSON).body(Map.of("client_id", id)).post(CLIENTS)
                .then().statusCode(409).extract().asString();
        assertThat(body).isEqualTo("{\"error_code\":\"client_exists\",\"desc\":\"A client with this id exists\"}");
    }

    @Test
    void listsClientsInIdOrderPageByPage() {
        admin().get(CLIENTS).then().statusCode(200).body("clients.client_id", hasItem(GAME))
                .body("clients.client_secret", not(hasItem(org.hamcrest.Matchers.notNullValue())));
        Response first = admin().queryParam("limit", 1).get(CLIENTS);
        first.then().statusCode(200).body("clients.size()", equalTo(1));
        String next = first.path("next");
        assertThat(next).isEqualTo(first.path("clients[0].client_id"));
        String second = admin().queryParam("limit", 1).queryParam("after", next).get(CLIENTS).path("clients[0].client_id");
        assertThat(second).isGreaterThan(next);
    }

    @Test
    void answersAnUnknownClientWith404() {
        for (Response response : List.of(admin().get(CLIENTS + "/nobody"), admin().post(CLIENTS + "/nobody/disable"),
                admin().post(CLIENTS + "/nobody/secret"),
                admin().contentType(ContentType.JSON).body("{\"permissions\":[]}").put(CLIENTS + "/nobody/permissions"))) {
            assertThat(response.statusCode()).isEqualTo(404);
            assertThat(response.asString()).isEqualTo("{\"error_code\":\"not_found\",\"desc\":\"No such client\"}");
        }
    }

    @Test
    void aDisabledClientGetsNoTokenUntilEnabledAgain() {
        String secret = create(id, List.of());
        tokenRequest(id, secret).post(TOKEN_PATH).then().statusCode(200);
        admin().post(CLIENTS + "/" + id + "/disable").then().statusCode(200).body("enabled", equalTo(false));
        tokenRequest(id, secret).post(TOKEN_PATH).then().statusCode(401);
        admin().post(CLIENTS + "/" + id + "/enable").then().statusCode(200).body("enabled", equalTo(true));
        tokenRequest(id, secret).post(TOKEN_PATH).then().statusCode(200);
    }

    @Test
    void rotatingTheSecretWithoutGraceRetiresTheOldOneAtOnce() {
        String old = create(id, List.of());
        tokenRequest(id, old).post(TOKEN_PATH).then().statusCode(200);
        String fresh = admin().queryParam("grace_seconds", 0).post(CLIENTS + "/" + id + "/secret").then().statusCode(200)
                .body("$", not(hasKey("previous_secret_expires_at")))
                .header("Cache-Control", "no-store").body("client_id", equalTo(id)).extract().path("client_secret");
        assertThat(fresh).isNotEqualTo(old);
        tokenRequest(id, old).post(TOKEN_PATH).then().statusCode(401);
        tokenRequest(id, fresh).post(TOKEN_PATH).then().statusCode(200);
    }

    @Test
    void newPermissionsAppearInTheNextToken() throws Exception {
        String secret = create(id, List.of("sandbox:config:view"));
        admin().contentType(ContentType.JSON).body("{\"permissions\":[\"notification:player:write\",\"sandbox:config:*\"]}")
                .put(CLIENTS + "/" + id + "/permissions").then().statusCode(200)
                .body("permissions", equalTo(List.of("notification:player:write", "sandbox:config:*")));
        var claims = JwtTestSupport.verify(token(id, secret), JwtTestSupport.publishedKeys());
        assertThat(claims.getStringListClaim("permissions")).containsExactly("notification:player:write", "sandbox:config:*");
    }

    @Test
    void refusesInvalidBodiesWithEveryFault() {
        String body = admin().contentType(ContentType.JSON)
                .body("{\"client_id\":\"bad id:\",\"permissions\":[\"ok\",5,\"has space\"],\"player_uuid\":\"nope\"}")
                .post(CLIENTS).then().statusCode(422).extract().asString();
        assertThat(body).isEqualTo("{\"detail\":["
                + "{\"loc\":[\"body\",\"client_id\"],\"msg\":\"Value error, should match pattern '[A-Za-z0-9._~-]+'\",\"type\":\"value_error\"},"
                + "{\"loc\":[\"body\",\"permissions\",1],\"msg\":\"Input should be a valid string\",\"type\":\"json_invalid\"},"
                + "{\"loc\":[\"body\",\"permissions\",2],\"msg\":\"Value error, should match pattern '[A-Za-z0-9._:*-]+'\",\"type\":\"value_error\"},"
                + "{\"loc\":[\"body\",\"player_uuid\"],\"msg\":\"Input should be a valid UUID\",\"type\":\"uuid_parsing\"}]}");
        assertThat(admin().contentType(ContentType.JSON).post(CLIENTS).then().statusCode(422).extract().asString())
                .isEqualTo("{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"Field required\",\"type\":\"missing\"}]}");
        assertThat(admin().contentType(ContentType.JSON).body("{}").put(CLIENTS + "/" + GAME + "/permissions")
                .then().statusCode(422).extract().asString())
                .isEqualTo("{\"detail\":[{\"loc\":[\"body\",\"permissions\"],\"msg\":\"Field required\",\"type\":\"missing\"}]}");
        admin().queryParam("limit", 0).get(CLIENTS).then().statusCode(422)
                .body("detail[0].loc", equalTo(List.of("query", "limit")));
    }

    @Test
    void refusesCallersWithoutTheAdminPermission() {
        String noToken = adminApi().get(CLIENTS).then().statusCode(403).extract().asString();
        assertThat(noToken).isEqualTo("{\"auth_success\":false,\"error_code\":\"auth_malformed_access\","
                + "\"desc\":\"No access token was presented\"}");
        String game = adminApi().auth().oauth2(token(GAME, GAME_SECRET)).post(CLIENTS + "/" + GAME + "/secret")
                .then().statusCode(403).extract().asString();
        assertThat(game).isEqualTo("{\"auth_success\":false,\"error_code\":\"insufficient_permissions\","
                + "\"desc\":\"The token lacks any of the permissions auth:clients:admin\"}");
        adminApi().header("Authorization", "Bearer not.a.jwt").get(CLIENTS).then().statusCode(403)
                .body("auth_success", equalTo(false));
    }

    private RequestSpecification admin() {
        return adminApi().auth().oauth2(adminToken);
    }

    /** As {@link #admin()}, the path sent as written ({@code %00} not encoded again). */
    private RequestSpecification raw() {
        return admin().urlEncodingEnabled(false);
    }

    private String create(String clientId, List<String> permissions) {
        return admin().contentType(ContentType.JSON).body(Map.of("client_id", clientId, "permissions", permissions))
                .post(CLIENTS).then().statusCode(201).extract().path("client_secret");
    }
}
