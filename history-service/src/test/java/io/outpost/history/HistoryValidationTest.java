package io.outpost.history;

import static io.outpost.history.HistoryFixture.PROFILE_LIST;
import static io.outpost.history.HistoryFixture.ROLE;
import static io.outpost.history.HistoryFixture.path;
import static io.outpost.history.HistoryFixture.viewer;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/** Every query bound of spec §4.3/§4.4/§8 at and past its limit, answered as DESIGN §5 422s. */
@QuarkusTest
class HistoryValidationTest {

    private static final UUID SANDBOX = UUID.randomUUID();

    private static ValidatableResponse get(String type, Map<String, ?> query) {
        return viewer().queryParams(query).when().get(path(SANDBOX, type)).then();
    }

    private static void fault(ValidatableResponse response, String loc, String type) {
        response.statusCode(422).body("detail", hasSize(1)).body("detail[0].type", is(type))
                .body("detail[0].loc.join(',')", is(loc));
    }

    /** RFC 9110 §15.5.6: a listing's 405 says it is read with GET (and HEAD); OPTIONS says the same. */
    @ParameterizedTest
    @ValueSource(strings = { ROLE, PROFILE_LIST })
    void otherMethodsOfAListingAre405WithItsAllow(String type) {
        for (String method : new String[] { "POST", "PUT", "DELETE", "PATCH" }) {
            viewer().when().request(method, path(SANDBOX, type)).then().statusCode(405)
                    .header("Allow", "GET, HEAD, OPTIONS")
                    .body(is("{\"error_code\":\"method_not_allowed\",\"desc\":\"Method Not Allowed\"}"));
        }
        viewer().when().options(path(SANDBOX, type)).then().statusCode(200).header("Allow", "GET, HEAD, OPTIONS");
        viewer().when().head(path(SANDBOX, type)).then().statusCode(200);
    }

    @ParameterizedTest
    @ValueSource(strings = { ROLE, PROFILE_LIST })
    void pageSizeIsOneToTenThousand(String type) {
        get(type, Map.of("page_size", "1")).statusCode(200).body("page_meta.page_size", is(1));
        get(type, Map.of("page_size", "10000")).statusCode(200).body("page_meta.page_size", is(10000));
        get(type, Map.of()).statusCode(200).body("page_meta.page_size", is(50));
        get(type, Map.of("page_size", "0")).statusCode(422).body(equalTo("{\"detail\":[{\"loc\":[\"query\",\"page_size\"],"
                + "\"msg\":\"Input should be greater than or equal to 1\",\"type\":\"greater_than_equal\"}]}"));
        fault(get(type, Map.of("page_size", "10001")), "query,page_size", "less_than_equal");
        fault(get(type, Map.of("page_size", "ten")), "query,page_size", "int_parsing");
        fault(get(type, Map.of("page_size", "")), "query,page_size", "int_parsing");
    }

    @ParameterizedTest
    @ValueSource(strings = { ROLE, PROFILE_LIST })
    void cursorIsOneToOneHundredTwentyEightCharacters(String type) {
        get(type, Map.of("cursor", "0")).statusCode(200);
        fault(get(type, Map.of("cursor", "")), "query,cursor", "string_too_short");
        fault(get(type, Map.of("cursor", "A".repeat(129))), "query,cursor", "string_too_long");
        // within the length bound, but not a cursor of this listing
        fault(get(type, Map.of("cursor", "A".repeat(128))), "query,cursor", "value_error");
    }

    @Test
    void nameIsOneToOneHundredTwentyEightCharacters() {
        get(ROLE, Map.of("name", "x")).statusCode(200);
        get(ROLE, Map.of("name", "é".repeat(128))).statusCode(200).body("page_meta.total", is(0));
        get(ROLE, Map.of("name", "")).statusCode(422).body(equalTo("{\"detail\":[{\"loc\":[\"query\",\"name\"],"
                + "\"msg\":\"String should have at least 1 character\",\"type\":\"string_too_short\"}]}"));
        fault(get(ROLE, Map.of("name", "é".repeat(129))), "query,name", "string_too_long");
    }

    @Test
    void sortOrderIsAscOrDesc() {
        get(ROLE, Map.of("sort_order", "asc")).statusCode(200);
        get(ROLE, Map.of("sort_order", "desc")).statusCode(200);
        get(ROLE, Map.of("sort_order", "DESC")).statusCode(422).body(equalTo("{\"detail\":[{\"loc\":[\"query\","
                + "\"sort_order\"],\"msg\":\"Input should be one of 'asc', 'desc'\",\"type\":\"enum\"}]}"));
    }

    @Test
    void badElementOfAnIdListIsLocatedByItsIndex() {
        String ok = UUID.randomUUID().toString();
        get(ROLE, Map.of("role_ids", ok + ",nope")).statusCode(422).body(equalTo("{\"detail\":[{\"loc\":[\"query\","
                + "\"role_ids\",1],\"msg\":\"Input should be a valid UUID\",\"type\":\"uuid_parsing\"}]}"));
        viewer().queryParam("role_ids", ok, ok, "x").when().get(path(SANDBOX, ROLE)).then().statusCode(422)
                .body("detail[0].loc", equalTo(java.util.List.of("query", "role_ids", 2)));
        fault(get(ROLE, Map.of("role_ids", "")), "query,role_ids,0", "uuid_parsing");
        get(ROLE, Map.of("legacy_role_ids", "1,2,x")).statusCode(422)
                .body("detail[0].loc", equalTo(java.util.List.of("query", "legacy_role_ids", 2)))
                .body("detail[0].type", is("int_parsing"));
        fault(get(ROLE, Map.of("legacy_role_ids", "99999999999999999999")), "query,legacy_role_ids,0", "less_than_equal");
    }

    @Test
    void resourceIdMustBeAUuid() {
        get(PROFILE_LIST, Map.of("resource_id", UUID.randomUUID().toString())).statusCode(200);
        fault(get(PROFILE_LIST, Map.of("resource_id", "123")), "query,resource_id", "uuid_parsing");
    }

    @ParameterizedTest
    @ValueSource(strings = { ROLE, PROFILE_LIST })
    void sandboxMustBeAUuid(String type) {
        viewer().when().get("/v1/history/sandbox/not-a-uuid/" + type).then().statusCode(422)
                .body(equalTo("{\"detail\":[{\"loc\":[\"path\",\"sandbox_id\"],\"msg\":\"Input should be a valid UUID\","
                        + "\"type\":\"uuid_parsing\"}]}"));
    }

    @Test
    void everyFaultIsReportedAtOnce() {
        viewer().queryParams(Map.of("page_size", "0", "cursor", "", "sort_order", "up", "name", ""))
                .when().get("/v1/history/sandbox/zzz/role").then().statusCode(422).body("detail", hasSize(5))
                .body("detail.loc[0]", equalTo(java.util.List.of("path", "sandbox_id")));
    }

    @Test
    void unknownQueryParametersAreIgnored() {
        get(ROLE, Map.of("colour", "blue")).statusCode(200).body("transactions", hasSize(0));
    }
}
