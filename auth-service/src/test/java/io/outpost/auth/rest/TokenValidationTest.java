package io.outpost.auth.rest;

import static io.outpost.auth.TestClients.GAME;
import static io.outpost.auth.TestClients.GAME_SECRET;
import static io.outpost.auth.TestClients.TOKEN_PATH;
import static io.outpost.auth.TestClients.basic;
import static io.outpost.auth.TestClients.fromOwnAddress;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/** Every 422 of the token endpoint (spec §4.1, §7; DESIGN §5), with its exact body. */
@QuarkusTest
class TokenValidationTest {

    private static final String MISSING_BODY = "{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"Field required\",\"type\":\"missing\"}]}";
    private static final String UNREADABLE = "{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"JSON decode error\",\"type\":\"json_invalid\"}]}";
    private static final String MISSING_GRANT = "{\"detail\":[{\"loc\":[\"body\",\"grant_type\"],\"msg\":\"Field required\",\"type\":\"missing\"}]}";
    private static final String WRONG_GRANT = "{\"detail\":[{\"loc\":[\"body\",\"grant_type\"],"
            + "\"msg\":\"Input should be 'client_credentials'\",\"type\":\"literal_error\"}]}";
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
        assertUnprocessable(authorized().contentType(ContentType.JSON).body("[\"client_credentials\"]"),
                "{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"Input should be a JSON object\",\"type\":\"json_invalid\"}]}");
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
        assertUnprocessable(authorized().contentType(ContentType.TEXT).body("grant_type=client_credentials"),
                "{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"Unsupported content type: send application/json or "
                        + "application/x-www-form-urlencoded\",\"type\":\"json_invalid\"}]}");
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
    }
}
