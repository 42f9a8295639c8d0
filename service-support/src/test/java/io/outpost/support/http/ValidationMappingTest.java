package io.outpost.support.http;

import static org.assertj.core.api.Assertions.assertThat;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.outpost.model.Limits;
import io.outpost.testsupport.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/** DESIGN §5 through real HTTP: every input fault is a 422 with the exact loc, type and msg, never a 400/500. */
@QuarkusTest
class ValidationMappingTest {

    private static final String SANDBOX = "/probe/3f2b8c1e-0d4a-4c5e-9f6a-1b2c3d4e5f60";

    private static ValidatableResponse get(String pathAndQuery) {
        return given().when().get(pathAndQuery).then();
    }

    /** As sent: {@code %00} reaches the service as a percent-encoded NUL. */
    private static ValidatableResponse getEncoded(String pathAndQuery) {
        return given().urlEncodingEnabled(false).when().get(pathAndQuery).then();
    }

    private static ValidatableResponse post(String body) {
        return given().contentType(ContentType.JSON).body(body).when().post("/probe").then();
    }

    private static void assertSingle(ValidatableResponse response, String type, String msg, Object... loc) {
        response.statusCode(422)
                .contentType(ContentType.JSON)
                .body("detail", hasSize(1))
                .body("detail[0].type", is(type))
                .body("detail[0].msg", is(msg))
                .body("detail[0].loc", contains(loc));
    }

    /**
     * InputParser decodes the query itself (so a held poll does not keep Vert.x's cached map): names exactly as
     * written, only {@code &} a separator ({@code ;} is part of a value), UTF-8, {@code +} a space, repeated and
     * empty values, and every parameter however many.
     */
    @Test
    void theQueryIsReadByExactNamesWithOnlyAmpersandSeparatingParameters() {
        assertThat(getEncoded("/probe/query").statusCode(200).extract().jsonPath().getMap("")).isEmpty();
        assertThat(query("?a=1&A=2")).isEqualTo(Map.of("a", List.of("1"), "A", List.of("2")));
        assertThat(query("?a=1;b=2&c=x;y")).isEqualTo(Map.of("a", List.of("1;b=2"), "c", List.of("x;y")));
        assertThat(query("?euro=%E2%82%AC&plus=a+b%2Bc")).isEqualTo(Map.of("euro", List.of("€"), "plus", List.of("a b+c")));
        assertThat(query("?empty=&flag&a=1&a=2"))
                .isEqualTo(Map.of("empty", List.of(""), "flag", List.of(""), "a", List.of("1", "2")));
        assertThat(query("?x=%00y&%41=b")).isEqualTo(Map.of("x", List.of("\u0000y"), "A", List.of("b")));
        String many = "p=1&".repeat(1500) + "last=z";
        Map<String, Object> read = query("?" + many);
        assertThat(read.get("last")).isEqualTo(List.of("z"));
        assertThat((List<?>) read.get("p")).hasSize(1500);
    }

    private static Map<String, Object> query(String query) {
        return getEncoded("/probe/query" + query).statusCode(200).extract().jsonPath().getMap("");
    }

    /**
     * A parameter after a thousand others is read like the first (Netty's decoder stopped at 1,024), a {@code ;}
     * in a value is kept, and an upper-case name is not the parameter (it is unknown, so ignored).
     */
    @Test
    void everyParameterIsReadWhereverItStandsAndByItsExactName() {
        assertSingle(get(SANDBOX + "?" + "a&".repeat(1500) + "page_size=abc"), "int_parsing",
                "Input should be a valid integer", "query", "page_size");
        get(SANDBOX + "?name=admin;x").statusCode(200).body("name", is("admin;x"));
        get(SANDBOX + "?PAGE_SIZE=abc&Page_Size=0").statusCode(200).body("page_size", is(50));
    }

    /**
     * A single-valued parameter given twice is refused, whichever of its values is valid: a proxy before the
     * service may have read the other one (HTTP parameter pollution). List parameters repeat freely.
     */
    @Test
    void aSingleValuedParameterGivenTwiceIsRefused() {
        var refused = get(SANDBOX + "?page_size=5&page_size=abc&cursor=0&cursor=0&name=a&mode=latest&mode=bogus")
                .statusCode(422).body("detail", hasSize(3));
        for (String name : List.of("page_size", "cursor", "mode")) {
            refused.body("detail.find { it.loc[1] == '" + name + "' }.type", is("value_error"))
                    .body("detail.find { it.loc[1] == '" + name + "' }.msg",
                            is("Value error, given more than once, expected once"));
        }
        get(SANDBOX + "?legacy_role_ids=7&legacy_role_ids=8").statusCode(200).body("legacy_role_ids", contains(7, 8));
    }

    @Test
    void validInputIsParsedWithDefaults() {
        get(SANDBOX + "?role_ids=0a1b2c3d-0000-4000-8000-000000000001,0A1B2C3D-0000-4000-8000-000000000002"
                + "&legacy_role_ids=7&legacy_role_ids=8")
                .statusCode(200)
                .body("sandbox_id", is("3f2b8c1e-0d4a-4c5e-9f6a-1b2c3d4e5f60"))
                .body("max_page_size", is(10))
                .body("deadline", is(30))
                .body("page_size", is(50))
                .body("cursor", is("0"))
                .body("mode", is("latest"))
                .body("role_ids", contains("0a1b2c3d-0000-4000-8000-000000000001",
                        "0a1b2c3d-0000-4000-8000-000000000002"))
                .body("legacy_role_ids", contains(7, 8));
    }

    @Test
    void boundsAreAcceptedAtTheLimit() {
        get(SANDBOX + "?max_page_size=100&name=" + "n".repeat(128)).statusCode(200).body("max_page_size", is(100));
        get(SANDBOX + "?max_page_size=1&name=x").statusCode(200).body("max_page_size", is(1));
        given().header("x-svc-client-addr", "a".repeat(32)).when().get(SANDBOX).then().statusCode(200);
    }

    @ParameterizedTest
    @CsvSource({ "deadline,0,900", "page_size,1,10000", "max_page_size,1,100" })
    void specLimitsHoldAtTheirBoundsAndRefuseOnePast(String name, int min, int max) {
        get(SANDBOX + "?" + name + "=" + min).statusCode(200).body(name, is(min));
        get(SANDBOX + "?" + name + "=" + max).statusCode(200).body(name, is(max));
        assertSingle(get(SANDBOX + "?" + name + "=" + (min - 1)), "greater_than_equal",
                "Input should be greater than or equal to " + min, "query", name);
        assertSingle(get(SANDBOX + "?" + name + "=" + (max + 1)), "less_than_equal",
                "Input should be less than or equal to " + max, "query", name);
    }

    @Test
    void cursorIsOneTo128Characters() {
        get(SANDBOX + "?cursor=" + "c".repeat(128)).statusCode(200).body("cursor", is("c".repeat(128)));
        assertSingle(get(SANDBOX + "?cursor="), "string_too_short", "String should have at least 1 character",
                "query", "cursor");
        assertSingle(get(SANDBOX + "?cursor=" + "c".repeat(129)), "string_too_long",
                "String should have at most 128 characters", "query", "cursor");
    }

    @Test
    void unparsableIntegerIsIntParsing() {
        assertSingle(get(SANDBOX + "?max_page_size=abc"), "int_parsing", "Input should be a valid integer",
                "query", "max_page_size");
        assertSingle(get(SANDBOX + "?max_page_size=1.5"), "int_parsing", "Input should be a valid integer",
                "query", "max_page_size");
    }

    @Test
    void belowMinimumIsGreaterThanEqual() {
        assertSingle(get(SANDBOX + "?max_page_size=0"), "greater_than_equal",
                "Input should be greater than or equal to 1", "query", "max_page_size");
    }

    @Test
    void aboveMaximumIsLessThanEqual() {
        assertSingle(get(SANDBOX + "?max_page_size=101"), "less_than_equal",
                "Input should be less than or equal to 100", "query", "max_page_size");
    }

    @Test
    void emptyStringIsStringTooShort() {
        assertSingle(get(SANDBOX + "?name="), "string_too_short", "String should have at least 1 character",
                "query", "name");
        assertSingle(get(SANDBOX + "?max_page_size="), "int_parsing", "Input should be a valid integer",
                "query", "max_page_size");
    }

    @Test
    void longStringIsStringTooLong() {
        assertSingle(get(SANDBOX + "?name=" + "n".repeat(129)), "string_too_long",
                "String should have at most 128 characters", "query", "name");
        assertSingle(given().header("x-svc-client-addr", "a".repeat(33)).when().get(SANDBOX).then(),
                "string_too_long", "String should have at most 32 characters", "header", "x-svc-client-addr");
    }

    @Test
    void badUuidIsUuidParsingWithItsLocation() {
        assertSingle(get("/probe/not-a-uuid"), "uuid_parsing", "Input should be a valid UUID", "path",
                "sandbox_id");
        assertSingle(get(SANDBOX + "?role_ids=0a1b2c3d-0000-4000-8000-000000000001&role_ids=nope"),
                "uuid_parsing", "Input should be a valid UUID", "query", "role_ids", 1);
        assertSingle(get(SANDBOX + "?legacy_role_ids=3,x"), "int_parsing", "Input should be a valid integer",
                "query", "legacy_role_ids", 1);
    }

    @Test
    void unknownChoiceIsEnum() {
        assertSingle(get(SANDBOX + "?mode=newest"), "enum", "Input should be one of 'latest', 'earliest'",
                "query", "mode");
    }

    @Test
    void wrongLiteralIsLiteralError() {
        assertSingle(post("{\"grant_type\":\"password\"}"), "literal_error", "Input should be 'client_credentials'",
                "body", "grant_type");
    }

    @Test
    void absentFieldIsMissing() {
        assertSingle(post("{}"), "missing", "Field required", "body", "grant_type");
    }

    @Test
    void absentBodyIsMissing() {
        assertSingle(given().contentType(ContentType.JSON).when().post("/probe").then(), "missing",
                "Field required", "body");
    }

    @Test
    void unparsableBodyIsJsonInvalid() {
        assertSingle(post("{\"grant_type\": "), "json_invalid", "JSON decode error", "body");
        assertSingle(post("[1,2"), "json_invalid", "JSON decode error", "body");
        // JSON, but not the object the body is: named as a field of the wrong kind is
        assertSingle(post("[1,2]"), "json_invalid", "Input should be a valid dictionary", "body");
        assertSingle(post("\"client_credentials\""), "json_invalid", "Input should be a valid dictionary", "body");
        // one JSON value, whole: Jackson's default read the first of two and ignored the second
        assertSingle(post("{\"grant_type\":\"client_credentials\"} {}"), "json_invalid", "JSON decode error", "body");
        assertSingle(post("{\"grant_type\":\"client_credentials\"}{\"count\":1}"), "json_invalid",
                "JSON decode error", "body");
    }

    @Test
    void wronglyTypedBodyFieldIsJsonInvalidAtThatField() {
        assertSingle(post("{\"grant_type\":\"client_credentials\",\"count\":\"many\"}"), "json_invalid",
                "Input should be a valid integer", "body", "count");
        assertSingle(post("{\"grant_type\":\"client_credentials\",\"extra\":[1]}"), "json_invalid",
                "Input should be a valid dictionary", "body", "extra");
    }

    /** Jackson's defaults would read each of these as the text or the integer; the contract's types do not. */
    @ParameterizedTest
    @ValueSource(strings = { "123", "-0", "1.5", "1e999999", "true", "false", "{}", "[\"client_credentials\"]" })
    void aNonStringScalarIsNotReadAsText(String value) {
        assertSingle(post("{\"grant_type\":" + value + "}"), "json_invalid", "Input should be a valid string",
                "body", "grant_type");
    }

    @ParameterizedTest
    @ValueSource(strings = { "1.5", "1.0", "1e999999", "99999999999999999999", "\"\"", "\" \"", "true", "\"7x\"" })
    void aNonIntegerIsNotReadAsAnInteger(String value) {
        assertSingle(post("{\"grant_type\":\"client_credentials\",\"count\":" + value + "}"), "json_invalid",
                "Input should be a valid integer", "body", "count");
    }

    @Test
    void anIntegerWrittenAsAStringIsRead() {
        post("{\"grant_type\":\"client_credentials\",\"count\":\"7\"}").statusCode(200).body("count", equalTo(7));
    }

    @Test
    void everyFaultIsReportedAtOnce() {
        get("/probe/bad?max_page_size=0&mode=x&name=")
                .statusCode(422)
                .body("detail", hasSize(4))
                .body("detail.type", contains("uuid_parsing", "greater_than_equal", "string_too_short", "enum"));
    }

    @Test
    void passedThroughNumbersKeepEveryDigit() {
        String body = given().contentType(ContentType.JSON)
                .body("{\"grant_type\":\"client_credentials\",\"extra\":{\"a\":1.10,\"b\":3.14159265358979323846264,"
                        + "\"c\":12345678901234567890123},\"snapshot\":{\"d\":2.50}}")
                .when().post("/probe").then().statusCode(200).extract().asString();
        org.junit.jupiter.api.Assertions.assertTrue(body.contains("\"a\":1.10"), body);
        org.junit.jupiter.api.Assertions.assertTrue(body.contains("\"b\":3.14159265358979323846264"), body);
        org.junit.jupiter.api.Assertions.assertTrue(body.contains("\"c\":12345678901234567890123"), body);
        org.junit.jupiter.api.Assertions.assertTrue(body.contains("\"d\":2.50"), body);
    }

    @Test
    void unknownQueryParametersAreIgnored() {
        get(SANDBOX + "?color=blue").statusCode(200);
    }

    /** A route below Quarkus REST (the long poll) answers a failure and a 405 with exactly the mappers' bodies. */
    @Test
    void routeAnswersAreTheMappersAnswers() {
        String mapped = get("/probe/failure/now").statusCode(500).extract().asString();
        String routed = get("/probe-route/failure").statusCode(500).contentType("application/json")
                .extract().asString();
        assertThat(routed).isEqualTo(mapped)
                .isEqualTo("{\"error_code\":\"internal_error\",\"desc\":\"Internal error\"}");
        String notAllowed = given().when().delete("/probe").then().statusCode(405).extract().asString();
        given().when().get("/probe-route/not-allowed").then().statusCode(405).contentType("application/json")
                .body(is(notAllowed));
        assertThat(notAllowed).isEqualTo("{\"error_code\":\"method_not_allowed\",\"desc\":\"Method Not Allowed\"}");
    }

    @Test
    void unexpectedFailureIsA500ThatRevealsNothing() {
        get("/probe/failure/now")
                .statusCode(500)
                .body("error_code", is("internal_error"))
                .body(not(containsString("secret")))
                .body(not(containsString("IllegalStateException")));
    }

    /** The service failing on JSON of its own is its fault: a 500 like any other, never the client's 422 or 400. */
    @ParameterizedTest
    @ValueSource(strings = { "/probe/failure/json", "/probe/failure/json-type" })
    void aJsonFailureOfTheServiceItselfIsA500(String path) {
        get(path).statusCode(500).contentType(ContentType.JSON)
                .body(is("{\"error_code\":\"internal_error\",\"desc\":\"Internal error\"}"));
    }

    /** RFC 9110 §15.5.6: a 405 says which methods the path has; OPTIONS says the same, per path, not per class. */
    @Test
    void wrongMethodIsA405WithAnErrorBodyAndTheAllowOfThePath() {
        given().when().delete("/probe").then().statusCode(405).header("Allow", "POST, OPTIONS")
                .body(is("{\"error_code\":\"method_not_allowed\",\"desc\":\"Method Not Allowed\"}"));
        given().when().post(SANDBOX).then().statusCode(405).header("Allow", "GET, HEAD, DELETE, OPTIONS");
        given().when().put("/probe/query").then().statusCode(405).header("Allow", "GET, HEAD, OPTIONS");
        given().when().options("/probe").then().statusCode(200).header("Allow", "POST, OPTIONS");
        given().when().options(SANDBOX).then().statusCode(200).header("Allow", "GET, HEAD, DELETE, OPTIONS");
        given().when().options("/probe/query").then().statusCode(200).header("Allow", "GET, HEAD, OPTIONS");
        given().when().get("/probe/query").then().statusCode(200).header("Allow", nullValue());
        given().when().delete("/no-such-path").then().statusCode(404).header("Allow", nullValue());
    }

    /** An Accept that JSON does not meet is a 406 with the same body, decided before the input is read. */
    @Test
    void unacceptableAcceptIsA406WithAnErrorBody() {
        String body = given().accept("text/plain").when().get(SANDBOX + "?max_page_size=0").then().statusCode(406)
                .contentType("application/json").extract().asString();
        assertThat(body).isEqualTo("{\"error_code\":\"not_acceptable\",\"desc\":\"Not Acceptable\"}");
        given().accept("application/json, text/plain").when().get(SANDBOX).then().statusCode(200);
    }

    private static final String NUL_MSG = "String should not contain U+0000 or an unpaired surrogate (U+D800..U+DFFF)";

    @ParameterizedTest
    @CsvSource({ "cursor=a%00b,cursor", "name=%00,name", "max_page_size=1%00,max_page_size", "mode=latest%00,mode" })
    void nulInAQueryValueIsStringPatternMismatchAtThatParameter(String query, String name) {
        assertSingle(getEncoded(SANDBOX + "?" + query), "string_pattern_mismatch", NUL_MSG, "query", name);
    }

    @Test
    void nulInAListElementIsLocatedByItsIndex() {
        assertSingle(getEncoded(SANDBOX + "?role_ids=0a1b2c3d-0000-4000-8000-000000000001,%00"), "string_pattern_mismatch",
                NUL_MSG, "query", "role_ids", 1);
        assertSingle(getEncoded(SANDBOX + "?legacy_role_ids=1&legacy_role_ids=2%00"), "string_pattern_mismatch", NUL_MSG,
                "query", "legacy_role_ids", 1);
    }

    @Test
    void nulInAPathParameterIsStringPatternMismatch() {
        assertSingle(getEncoded("/probe/3f2b8c1e-0d4a-4c5e-9f6a-1b2c3d4e5f60%00"), "string_pattern_mismatch", NUL_MSG,
                "path", "sandbox_id");
    }

    /** Raw request lines: HTTP clients refuse to send a malformed URI at all. */
    private static String rawGet(String target) {
        return rawGet(target, "");
    }

    /** {@code moreHeaders}: each line ending in CRLF. */
    private static String rawGet(String target, String moreHeaders) {
        return RawHttp.get(RestAssured.port, target, moreHeaders);
    }

    /** The answer's status line and body: one request per connection, so the body ends the stream. */
    private static void assertRaw(String answer, String status, String body) {
        assertTrue(answer.startsWith("HTTP/1.1 " + status + " "), answer);
        assertTrue(answer.endsWith("\r\n\r\n" + body), answer);
    }

    /** {@code GET <target> HTTP/1.1} of exactly {@code bytes} bytes: 200 role ids, then an ignored parameter as padding. */
    private static String targetForALineOf(int bytes) {
        StringBuilder target = new StringBuilder(SANDBOX).append("?role_ids=");
        for (int i = 0; i < 200; i++) {
            target.append(i == 0 ? "" : ",").append(String.format("0a1b2c3d-0000-4000-8000-%012d", i));
        }
        target.append("&pad=");
        int line = "GET ".length() + target.length() + " HTTP/1.1".length();
        return target.append("p".repeat(bytes - line)).toString();
    }

    @Test
    void aRequestLineUpToTheLimitReachesTheRoute() {
        String answer = rawGet(targetForALineOf(Limits.REQUEST_LINE_MAX_BYTES));
        assertTrue(answer.startsWith("HTTP/1.1 200 "), answer.lines().findFirst().orElse(answer));
        assertTrue(answer.contains("0a1b2c3d-0000-4000-8000-000000000199\"]"), "all 200 role ids were read");
    }

    /** Vert.x answers before any route: no error body, the connection closed (docs/architecture.md, "Request sizes"). */
    @Test
    void aLongerRequestLineIsA414() {
        String answer = rawGet(targetForALineOf(Limits.REQUEST_LINE_MAX_BYTES + 1));
        // Vert.x cannot tell the version of a line it did not read: its 414 speaks HTTP/1.0
        assertTrue(answer.startsWith("HTTP/1.0 414 ") && answer.endsWith("\r\n\r\n"), answer);
    }

    @Test
    void headersUpToTheLimitAreReadAndMoreIsA431() {
        // the request's other header lines take well under 1 KiB
        String justUnder = "x-pad: " + "h".repeat(Limits.REQUEST_HEADERS_MAX_BYTES - 1024) + "\r\n";
        assertTrue(rawGet(SANDBOX, justUnder).startsWith("HTTP/1.1 200 "));
        String over = "x-pad: " + "h".repeat(Limits.REQUEST_HEADERS_MAX_BYTES) + "\r\n";
        assertRaw(rawGet(SANDBOX, over), "431", "");
    }

    /**
     * A header line that is not HTTP/1.1 never reaches a route: the decoder answers a bodiless 400 and closes (the
     * one 400 of the services, docs/architecture.md). A byte above 0x7F is HTTP, and is read.
     */
    @ParameterizedTest
    @ValueSource(strings = { "x-a: a\u0000b", "x-a: a\rb", "x-\u0000a: b", "no colon", "x-a : b" })
    void aHeaderLineThatIsNotHttpIsRefusedBeforeAnyRoute(String line) {
        assertRaw(rawGet(SANDBOX, line + "\r\n"), "400", "");
        assertTrue(rawGet(SANDBOX, "x-a: caf\u00e9\r\n").startsWith("HTTP/1.1 200 "));
    }

    /**
     * A header value whose bytes are not well-formed UTF-8 is 422 at that header, not read with U+FFFD in their place:
     * {@code FF}, and {@code C0 80} — U+0000 to a lenient decoder — alike. A raw 0x00 byte never gets that far (the
     * decoder's 400, above).
     */
    @ParameterizedTest
    @ValueSource(strings = { "10.0.0.\u00ff", "a\u00c0\u0080", "\u00ed\u00a0\u0080", "caf\u00c3" })
    void aHeaderThatIsNotUtf8Is422AtThatHeader(String value) {
        assertRaw(rawGet(SANDBOX, "x-svc-client-addr: " + value + "\r\n"), "422", "{\"detail\":[{\"loc\":[\"header\","
                + "\"x-svc-client-addr\"],\"msg\":\"Value error, not UTF-8\",\"type\":\"value_error\"}]}");
        assertTrue(rawGet(SANDBOX, "x-svc-client-addr: caf\u00c3\u00a9\r\n").startsWith("HTTP/1.1 200 "));
        assertRaw(rawGet(SANDBOX, "x-svc-client-addr: 10.0.0.1\u0000\r\n"), "400", "");
    }

    @ParameterizedTest
    @ValueSource(strings = { SANDBOX + "?cursor=%zz", SANDBOX + "?cursor=%", SANDBOX + "?cursor=%0",
        SANDBOX + "?cursor=ok&x=%g0", "/nowhere?cursor=%zz", "/q/health/ready?%" })
    void malformedPercentEncodingInTheQueryIs422AtQueryOnEveryRoute(String target) {
        assertRaw(rawGet(target), "422", "{\"detail\":[{\"loc\":[\"query\"],"
                + "\"msg\":\"Invalid query string: Malformed escape pair\",\"type\":\"json_invalid\"}]}");
    }

    @Test
    void malformedPercentEncodingInThePathIs422AtPath() {
        assertRaw(rawGet("/probe/%zz?cursor=%zz"), "422", "{\"detail\":[{\"loc\":[\"path\"],"
                + "\"msg\":\"Invalid path: Malformed escape pair\",\"type\":\"json_invalid\"}]}");
        assertRaw(rawGet("/probe/{x}"), "422", "{\"detail\":[{\"loc\":[\"path\"],"
                + "\"msg\":\"Invalid path: Illegal character in path\",\"type\":\"json_invalid\"}]}");
    }

    /**
     * Escapes that are well-formed but not UTF-8 — a byte that never is ({@code %FF}), an overlong form, an encoded
     * surrogate, a sequence cut short, by itself or before valid text — are refused like a malformed escape, on
     * every route, whether or not it reads its query: never read with U+FFFD in their place.
     */
    @ParameterizedTest
    @ValueSource(strings = { SANDBOX + "?cursor=%FF", SANDBOX + "?cursor=a%C0%80", SANDBOX + "?name=%ED%A0%80",
        SANDBOX + "?name=%E2%82", SANDBOX + "?name=%E2%82&cursor=%AC", SANDBOX + "?%FF=1", SANDBOX + "?cursor=%C3+%A9",
        SANDBOX + "?x=%F4%90%80%80", SANDBOX + "?x=%80", "/probe/query?a=%fe", "/nowhere?cursor=%FF",
        "/q/health/ready?%C0%AF" })
    void anEscapeThatIsNotUtf8Is422AtQueryOnEveryRoute(String target) {
        assertRaw(rawGet(target), "422", "{\"detail\":[{\"loc\":[\"query\"],"
                + "\"msg\":\"Invalid query string: not UTF-8\",\"type\":\"json_invalid\"}]}");
    }

    /**
     * A byte above 0x7F sent unescaped (not a URI, but {@code java.net.URI} lets those of U+00A1..U+00FF through) is
     * read as UTF-8 like an escaped one: {@code C3 A9} is "é", never "Ã©", and {@code FF} is refused.
     */
    @Test
    void aRawByteInTheQueryIsReadAsUtf8LikeAnEscapedOne() {
        String answer = rawGet(SANDBOX + "?name=caf\u00c3\u00a9");
        assertTrue(answer.startsWith("HTTP/1.1 200 ") && answer.contains("\"name\":\"caf\u00e9\""), answer);
        assertRaw(rawGet(SANDBOX + "?name=caf\u00ff"), "422", "{\"detail\":[{\"loc\":[\"query\"],"
                + "\"msg\":\"Invalid query string: not UTF-8\",\"type\":\"json_invalid\"}]}");
    }

    @Test
    void wellFormedPercentEncodingStillDecodes() {
        String answer = rawGet(SANDBOX + "?cursor=%41%2b%2B+b&name=%C3%A9");
        assertTrue(answer.startsWith("HTTP/1.1 200 ") && answer.contains("\"cursor\":\"A++ b\"")
                && answer.contains("\"name\":\"\u00e9\""), answer);
        // the first and last character of each UTF-8 length
        getEncoded(SANDBOX + "?cursor=%C2%80%DF%BF%E0%A0%80%EF%BF%BF%F0%90%80%80%F4%8F%BF%BF&name=%F0%9F%98%80")
                .statusCode(200).body("cursor", is("\u0080\u07ff\u0800\uffff\ud800\udc00\udbff\udfff"))
                .body("name", is("\ud83d\ude00"));
    }
}
