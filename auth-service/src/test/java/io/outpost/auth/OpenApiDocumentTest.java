package io.outpost.auth;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.outpost.testsupport.contract.OpenApiContract;
import io.outpost.testsupport.contract.OpenApiDocument;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The public port's document describes the OAuth and key endpoints and no admin route; the admin API's document is
 * answered on the admin port only, and describes exactly the admin routes, each with its bearer refusals.
 */
@QuarkusTest
class OpenApiDocumentTest extends OpenApiContract {

    private static final String ADMIN = "/users/v1/admin";

    @Override
    protected List<String> privatePrefixes() {
        return List.of(ADMIN);
    }

    private static OpenApiDocument adminDocument() {
        return OpenApiDocument.parse(TestClients.adminApi().when().get("/q/openapi?format=json").then()
                .statusCode(200).contentType("application/json").extract().asString());
    }

    @Test
    void theAdminDocumentIsValidOpenApi31AndTheSameAsYaml() {
        OpenApiDocument json = adminDocument();
        assertEquals(List.of(), json.problems());
        OpenApiDocument yaml = OpenApiDocument.parse(TestClients.adminApi().when().get("/q/openapi").then()
                .statusCode(200).contentType("application/yaml").extract().asString());
        assertEquals(json.root(), yaml.root());
    }

    @Test
    void theAdminDocumentDescribesEveryAdminRouteWithItsRefusals() {
        Set<String> adminRoutes = inventory().routes().stream().filter(r -> r.contains(" " + ADMIN + "/"))
                .collect(Collectors.toSet());
        OpenApiDocument document = adminDocument();
        assertRoutesDescribed(adminRoutes, document);
        List<String> problems = new ArrayList<>();
        // a change takes the token from the header only (AdminHeaderOnly): its operation offers no cookie
        document.operations().forEach(key -> problems.addAll(key.startsWith("GET ") ? refusalProblems(document, key)
                : refusalProblems(document, key, List.of("bearer"))));
        document.operations().stream().filter(key -> !key.startsWith("GET ")).forEach(key -> {
            if (document.operation(key).path("security").toString().contains("cookie")) {
                problems.add(key + ": a change offers the cookie");
            }
        });
        assertEquals(List.of(), problems);
    }

    @Test
    void theAdminDocumentIsNotOnThePublicPort() {
        given().when().get(ADMIN + "/openapi").then().statusCode(404).body("error_code", is("not_found"));
        OpenApiDocument publicDocument = publicDocument();
        assertEquals(Set.of("/users/v2/oauth/token", "/users/v2/oauth/revoke", "/users/v2/oauth/introspect",
                "/users/v1/publickeys", "/users/v1/publickeys/{kid}", "/.well-known/oauth-authorization-server",
                "/.well-known/openid-configuration"), fieldNames(publicDocument.root().path("paths")));
    }

    @Test
    void theTokenEndpointsLimitsAndSchemesAreDescribed() {
        OpenApiDocument document = publicDocument();
        assertEquals(32, document.parameter("POST /users/v2/oauth/token", "x-svc-client-addr").path("schema")
                .path("maxLength").asInt());
        assertEquals("basic", document.root().path("components").path("securitySchemes").path("basic")
                .path("scheme").asText());
        OpenApiDocument admin = adminDocument();
        assertEquals(Set.of("bearer", "cookie"), fieldNames(admin.root().path("components").path("securitySchemes")));
        assertEquals("cookie", admin.root().path("components").path("securitySchemes").path("cookie").path("in").asText());
        var limit = admin.parameter("GET " + ADMIN + "/clients", "limit").path("schema");
        assertEquals(List.of(1, 1000, 100), List.of(limit.path("minimum").asInt(), limit.path("maximum").asInt(),
                limit.path("default").asInt()));
    }

    private static Set<String> fieldNames(com.fasterxml.jackson.databind.JsonNode node) {
        Set<String> names = new java.util.TreeSet<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
