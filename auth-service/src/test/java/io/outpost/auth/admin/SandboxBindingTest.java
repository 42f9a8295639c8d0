package io.outpost.auth.admin;

import static io.outpost.auth.TestClients.ADMIN;
import static io.outpost.auth.TestClients.ADMIN_SECRET;
import static io.outpost.auth.TestClients.adminApi;
import static io.outpost.auth.TestClients.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.outpost.auth.JwtTestSupport;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/**
 * A client bound to sandboxes: {@code sandbox_ids} on create, PATCH and GET, in bootstrap configuration, as the
 * token's claim and in introspection; a client without it carries no claim; every bad list is a 422 at its place.
 */
@QuarkusTest
class SandboxBindingTest {

    static final String CLIENTS = "/users/v1/admin/clients";
    private static final String A = "0b7e2f4c-1d3a-4e5b-8c6d-7e8f9a0b1c2d";
    private static final String B = "5b0c5f3e-8f4e-4f43-9a57-0d8f1f0a2c11";

    private String adminToken;
    private String id;

    @BeforeEach
    void adminAndAFreshId() {
        adminToken = token(ADMIN, ADMIN_SECRET);
        id = "tenant-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void createGetPatchAndTheTokenCarryTheBinding() throws Exception {
        String c = UUID.randomUUID().toString();
        Response created = admin().contentType(ContentType.JSON).body(Map.of("client_id", id,
                "permissions", List.of("sandbox:config:view"), "sandbox_ids", List.of(A.toUpperCase(), c))).post(CLIENTS);
        created.then().statusCode(201).body("sandbox_ids", equalTo(List.of(A, c)));
        String secret = created.path("client_secret");
        admin().get(CLIENTS + "/" + id).then().statusCode(200).body("sandbox_ids", equalTo(List.of(A, c)));
        String first = token(id, secret);
        assertThat(JwtTestSupport.verify(first, JwtTestSupport.publishedKeys()).getStringListClaim("sandbox_ids"))
                .containsExactly(A, c);
        assertThat(TokenLifecycleTest.introspect(first).getList("sandbox_ids", String.class)).containsExactly(A, c);

        // a new binding: the next token carries it, the earlier one (bound to more) is revoked
        admin().contentType(ContentType.JSON).body(Map.of("sandbox_ids", List.of(B))).patch(CLIENTS + "/" + id)
                .then().statusCode(200).body("sandbox_ids", equalTo(List.of(B)))
                .body("permissions", equalTo(List.of("sandbox:config:view"))).body("$", hasKey("tokens_revoked_before"));
        admin().get(CLIENTS + "/" + id).then().statusCode(200).body("sandbox_ids", equalTo(List.of(B)));
        assertThat(TokenLifecycleTest.introspect(first).getBoolean("active")).isFalse();
        String second = token(id, secret);
        assertThat(JwtTestSupport.verify(second, JwtTestSupport.publishedKeys()).getStringListClaim("sandbox_ids"))
                .containsExactly(B);

        // unbound again: a platform tool's token, without the claim
        admin().contentType(ContentType.JSON).body("{\"sandbox_ids\":null}").patch(CLIENTS + "/" + id)
                .then().statusCode(200).body("$", not(hasKey("sandbox_ids")));
        var claims = JwtTestSupport.verify(token(id, secret), JwtTestSupport.publishedKeys());
        assertThat(claims.getClaim("sandbox_ids")).isNull();
    }

    @Test
    void aClientWithoutSandboxesCarriesNoClaim() throws Exception {
        Response created = admin().contentType(ContentType.JSON).body(Map.of("client_id", id,
                "permissions", List.of("sandbox:config:view"))).post(CLIENTS);
        created.then().statusCode(201).body("$", not(hasKey("sandbox_ids")));
        String token = token(id, created.path("client_secret"));
        assertThat(JwtTestSupport.verify(token, JwtTestSupport.publishedKeys()).getClaim("sandbox_ids")).isNull();
        assertThat(TokenLifecycleTest.introspect(token).getMap("$")).doesNotContainKey("sandbox_ids");
        // PATCH of the permissions alone leaves the binding (none) and the tokens as they are
        admin().contentType(ContentType.JSON).body(Map.of("permissions", List.of("sandbox:config:edit")))
                .patch(CLIENTS + "/" + id).then().statusCode(200)
                .body("permissions", equalTo(List.of("sandbox:config:edit"))).body("$", not(hasKey("sandbox_ids")))
                .body("$", not(hasKey("tokens_revoked_before")));
    }

    @Test
    void aBootstrapClientIsBoundAsConfiguredInCanonicalForm() throws Exception {
        adminApi().auth().oauth2(adminToken).get(CLIENTS + "/test-tenant").then().statusCode(200)
                .body("sandbox_ids", equalTo(List.of(A, B)));
        var claims = JwtTestSupport.verify(token("test-tenant", "test-tenant-secret"), JwtTestSupport.publishedKeys());
        assertThat(claims.getStringListClaim("sandbox_ids")).containsExactly(A, B);
    }

    @Test
    void everyBadListIsA422AtItsPlace() {
        String nul = "{\"loc\":[\"body\",\"sandbox_ids\",1],\"msg\":\"String should not contain U+0000 or an unpaired "
                + "surrogate (U+D800..U+DFFF)\",\"type\":\"string_pattern_mismatch\"}";
        String body = "{\"client_id\":\"" + id + "\",\"sandbox_ids\":[\"" + A + "\",\"a\\u0000\",\"nope\",\"" + A.toUpperCase()
                + "\"]}";
        String expected = "{\"detail\":[" + nul
                + ",{\"loc\":[\"body\",\"sandbox_ids\",2],\"msg\":\"Input should be a valid UUID\",\"type\":\"uuid_parsing\"}"
                + ",{\"loc\":[\"body\",\"sandbox_ids\",3],\"msg\":\"Value error, should not repeat sandbox " + A
                + "\",\"type\":\"value_error\"}]}";
        assertThat(admin().contentType(ContentType.JSON).body(body).post(CLIENTS).then().statusCode(422).extract()
                .asString()).isEqualTo(expected);
        admin().get(CLIENTS + "/" + id).then().statusCode(404);

        create();
        List<String> many = IntStream.range(0, 101).mapToObj(i -> UUID.randomUUID().toString()).toList();
        Map<String, String> refused = Map.of(
                "{\"sandbox_ids\":" + new com.fasterxml.jackson.databind.ObjectMapper().valueToTree(many) + "}",
                "{\"detail\":[{\"loc\":[\"body\",\"sandbox_ids\"],\"msg\":\"List should have at most 100 items\","
                        + "\"type\":\"too_long\"}]}",
                "{\"sandbox_ids\":[]}", "{\"detail\":[{\"loc\":[\"body\",\"sandbox_ids\"],\"msg\":\"List should have at "
                        + "least 1 item\",\"type\":\"too_short\"}]}",
                "{\"sandbox_ids\":\"" + A + "\"}", "{\"detail\":[{\"loc\":[\"body\",\"sandbox_ids\"],\"msg\":\"Input "
                        + "should be a valid list\",\"type\":\"json_invalid\"}]}",
                "{\"sandbox_ids\":[5]}", "{\"detail\":[{\"loc\":[\"body\",\"sandbox_ids\",0],\"msg\":\"Input should be "
                        + "a valid string\",\"type\":\"json_invalid\"}]}",
                "{}", "{\"detail\":[{\"loc\":[\"body\",\"sandbox_ids\"],\"msg\":\"Field required\",\"type\":\"missing\"}]}");
        refused.forEach((patch, answer) -> assertThat(admin().contentType(ContentType.JSON).body(patch)
                .patch(CLIENTS + "/" + id).then().statusCode(422).extract().asString()).as(patch).isEqualTo(answer));
        // nothing was changed by a refused call
        admin().get(CLIENTS + "/" + id).then().statusCode(200).body("$", not(hasKey("sandbox_ids")))
                .body("$", not(hasKey("tokens_revoked_before")));
        admin().contentType(ContentType.JSON).body("{\"sandbox_ids\":[\"" + A + "\"]}").patch(CLIENTS + "/nobody")
                .then().statusCode(404);
    }

    private void create() {
        admin().contentType(ContentType.JSON).body(Map.of("client_id", id)).post(CLIENTS).then().statusCode(201);
    }

    private RequestSpecification admin() {
        return adminApi().auth().oauth2(adminToken);
    }
}
