package io.outpost.testsupport.contract;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import jakarta.enterprise.inject.spi.CDI;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What every service's OpenAPI document ({@code /q/openapi}) must be (issue 40): valid OpenAPI 3.1 that a client
 * generator takes, describing exactly the routes the service answers on its public port — each one, and no private
 * one — with the bearer token's security and the refusals every guarded operation gives (403 with its body and
 * {@code WWW-Authenticate}, 422 with DESIGN §5's {@code detail}). A service's test extends it under
 * {@code @QuarkusTest}.
 */
public abstract class OpenApiContract {

    /** Routes under these prefixes are private (another port): never in the public document. */
    protected List<String> privatePrefixes() {
        return List.of();
    }

    protected OpenApiDocument publicDocument() {
        return OpenApiDocument.parse(given().when().get("/q/openapi?format=json").then().statusCode(200)
                .extract().asString());
    }

    protected static RouteInventory inventory() {
        return CDI.current().select(RouteInventory.class).get();
    }

    @Test
    void theDocumentIsValidOpenApi31() {
        OpenApiDocument document = publicDocument();
        assertEquals(List.of(), document.problems(), "what makes /q/openapi unusable by a client generator");
        // the YAML form is the same document
        OpenApiDocument yaml = OpenApiDocument.parse(given().when().get("/q/openapi").then().statusCode(200)
                .extract().asString());
        assertEquals(document.operations(), yaml.operations());
    }

    @Test
    void everyPublicRouteIsDescribedAndNoOther() {
        Set<String> routes = inventory().routes().stream().filter(r -> !isPrivate(r)).collect(Collectors.toSet());
        assertRoutesDescribed(routes, publicDocument());
    }

    @Test
    void noPrivateRouteIsInThePublicDocument() {
        List<String> leaked = publicDocument().operations().stream().filter(this::isPrivate).toList();
        assertEquals(List.of(), leaked, "private routes in the public document");
    }

    @Test
    void everyGuardedOperationDescribesTheTokenAndItsRefusals() {
        OpenApiDocument document = publicDocument();
        List<String> problems = new ArrayList<>();
        Set<String> guarded = inventory().guardedRoutes().stream().filter(r -> !isPrivate(r)).collect(Collectors.toSet());
        for (String key : document.operations()) {
            if (guarded.contains(RouteInventory.template(key))) {
                problems.addAll(refusalProblems(document, key));
            }
        }
        assertEquals(List.of(), problems);
    }

    /** {@code routes} (in {@link RouteInventory}'s form) are exactly the document's operations. */
    protected static void assertRoutesDescribed(Set<String> routes, OpenApiDocument document) {
        Set<String> described = document.operations().stream().map(RouteInventory::template)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> undescribed = new TreeSet<>();
        for (String route : routes) {
            boolean anyMethod = route.startsWith("* ");
            String path = route.substring(route.indexOf(' ') + 1);
            boolean found = anyMethod ? described.stream().anyMatch(d -> d.endsWith(" " + path))
                    : described.contains(route);
            if (!found) {
                undescribed.add(route);
            }
        }
        Set<String> unanswered = new TreeSet<>();
        for (String operation : described) {
            String path = operation.substring(operation.indexOf(' ') + 1);
            if (!routes.contains(operation) && !routes.contains("* " + path)) {
                unanswered.add(operation);
            }
        }
        assertEquals(Set.of(), undescribed, "routes the service answers that the document does not describe");
        assertEquals(Set.of(), unanswered, "operations of the document that the service does not answer");
        assertTrue(!routes.isEmpty(), "the service answers no route at all");
    }

    /**
     * What a bearer-guarded operation must say: the bearer header and the {@code Authorization} cookie as its
     * security, a 403 with DESIGN §3's body and {@code WWW-Authenticate}, and a 422 with DESIGN §5's body.
     */
    protected static List<String> refusalProblems(OpenApiDocument document, String key) {
        return refusalProblems(document, key, List.of("bearer", "cookie"));
    }

    /** The same, with the security schemes the operation must offer ({@code bearer} alone: no cookie). */
    protected static List<String> refusalProblems(OpenApiDocument document, String key, List<String> required) {
        List<String> problems = new ArrayList<>();
        JsonNode operation = document.operation(key);
        Set<String> schemes = new TreeSet<>();
        operation.path("security").forEach(r -> r.fieldNames().forEachRemaining(schemes::add));
        for (String scheme : required) {
            if (!schemes.contains(scheme)) {
                problems.add(key + ": security does not offer " + scheme);
            }
        }
        JsonNode forbidden = document.resolve(operation.path("responses").path("403"));
        if (!forbidden.path("headers").has("WWW-Authenticate")) {
            problems.add(key + ": 403 without WWW-Authenticate");
        }
        requireFields(document, key + " 403", forbidden, List.of("auth_success", "error_code", "desc"), problems);
        JsonNode invalid = document.resolve(operation.path("responses").path("422"));
        requireFields(document, key + " 422", invalid, List.of("detail"), problems);
        return problems;
    }

    private static void requireFields(OpenApiDocument document, String at, JsonNode response, List<String> fields,
            List<String> problems) {
        JsonNode schema = document.resolve(response.path("content").path("application/json").path("schema"));
        for (String field : fields) {
            boolean required = false;
            for (JsonNode name : schema.path("required")) {
                required |= name.asText().equals(field);
            }
            if (!required || !schema.path("properties").has(field)) {
                problems.add(at + ": the body does not require " + field);
            }
        }
    }

    private boolean isPrivate(String route) {
        String path = route.substring(route.indexOf(' ') + 1);
        return privatePrefixes().stream().anyMatch(path::startsWith);
    }
}
