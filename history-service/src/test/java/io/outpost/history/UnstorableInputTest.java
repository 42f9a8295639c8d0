package io.outpost.history;

import static io.outpost.history.HistoryFixture.ROLE;
import static io.outpost.history.HistoryFixture.awaitTotal;
import static io.outpost.history.HistoryFixture.kafka;
import static io.outpost.history.HistoryFixture.page;
import static io.outpost.history.HistoryFixture.path;
import static io.outpost.history.HistoryFixture.role;
import static io.outpost.history.HistoryFixture.token;
import static io.outpost.history.HistoryFixture.viewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.outpost.model.Permissions;
import io.outpost.model.Topics;
import io.outpost.testsupport.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;

/**
 * DESIGN §5: what PostgreSQL cannot keep is refused at the edge — a dead letter with its reason from Kafka, a
 * 422 for a query — and the valid record behind it is stored.
 */
@QuarkusTest
class UnstorableInputTest {

    private static final String NUL = "String should not contain U+0000 or an unpaired surrogate (U+D800..U+DFFF)";
    private static final String NUMERIC = "Value error, number should have at most 1000 characters written without an exponent";
    private static final String DATETIME =
            "Input should be a valid datetime from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z";

    /** An event as JSON text with {@code field} replaced by the raw JSON {@code value}. */
    private static String with(ObjectNode event, String field, String value) {
        String placeholder = "\"" + field + "\":\"@@\"";
        return event.put(field, "@@").toString().replace(placeholder, "\"" + field + "\":" + value);
    }

    @Test
    void transactionsTheStoreCannotKeepAreDeadLetteredWithTheSameWordsAndTheNextOneIsStored() {
        UUID sandbox = UUID.randomUUID();
        String key = sandbox.toString();
        Map<String, String> refused = new LinkedHashMap<>();
        for (String field : List.of("transaction_id", "account_id", "version_id", "version_name", "operation",
                "resource_id")) {
            refused.put(with(role(sandbox, UUID.randomUUID(), "x"), field, "\"a\\u0000b\""),
                    "value." + field + ": " + NUL + " [string_pattern_mismatch]");
        }
        refused.put(with(role(sandbox, UUID.randomUUID(), "x"), "account_id", "\"\\ud83d\""),
                "value.account_id: " + NUL + " [string_pattern_mismatch]");
        refused.put(with(role(sandbox, UUID.randomUUID(), "x"), "version", "{\"name\":\"r\\u0000\"}"),
                "value.version.name: " + NUL + " [string_pattern_mismatch]");
        refused.put(with(role(sandbox, UUID.randomUUID(), "x"), "version", "{\"perms\":[{\"a\\u0000\":1}]}"),
                "value.version.perms.0.a\uFFFD.[key]: " + NUL + " [string_pattern_mismatch]");
        refused.put(with(role(sandbox, UUID.randomUUID(), "x"), "issued_at", "\"+300000-01-01T00:00:00Z\""),
                "value.issued_at: " + DATETIME + " [datetime_parsing]");
        refused.put(with(role(sandbox, UUID.randomUUID(), "x"), "issued_at", "\"10000-01-01T00:00:00Z\""),
                "value.issued_at: " + DATETIME + " [datetime_parsing]");
        refused.put(with(role(sandbox, UUID.randomUUID(), "x"), "issued_at", "253402300800"),
                "value.issued_at: " + DATETIME + " [datetime_parsing]");
        refused.put(with(role(sandbox, UUID.randomUUID(), "x"), "version",
                "{\"a\":".repeat(128) + "{}" + "}".repeat(128)),
                "value.version" + ".a".repeat(128) + ": Value error, JSON should be nested at most 128 levels deep [value_error]");
        // beyond PostgreSQL numeric (131,072 digits before the point, 16,383 after), so longer than 1,000 characters
        for (String number : List.of("{\"n\":[1,1e-20000]}", "{\"n\":{\"big\":1e200000}}", "{\"n\":[1.0e-16383]}",
                "{\"n\":[12e131071]}")) {
            String at = number.contains("big") ? "value.version.n.big" : number.contains("1,") ? "value.version.n.1"
                    : "value.version.n.0";
            refused.put(with(role(sandbox, UUID.randomUUID(), "x"), "version", number), at + ": " + NUMERIC
                    + " [value_error]");
        }
        ObjectNode valid = role(sandbox, UUID.randomUUID(), "valid").put("issued_at", "9999-12-31T23:59:59Z");
        // numbers are stored by value, written back in PostgreSQL's form, at most 1,000 characters long
        String validText = with(valid.deepCopy(), "version",
                "{\"name\":\"valid\",\"n\":[1e400,-0.0,1.50e1,1e-998,0e-998,0e200000,0.5e999]}");
        List<Map.Entry<String, String>> records = new ArrayList<>();
        refused.keySet().forEach(value -> records.add(Map.entry(key, value)));
        records.add(Map.entry(key, validText));
        kafka().sendAll(Topics.SANDBOX_CONFIG_TRANSACTIONS, records);

        awaitTotal(sandbox, ROLE, 1);
        Map<String, String> reasons = new LinkedHashMap<>();
        kafka().read(Topics.deadLetter(Topics.SANDBOX_CONFIG_TRANSACTIONS), key, refused.size(), Duration.ofSeconds(60))
                .forEach(letter -> reasons.put(letter.value(), letter.headers().get(Topics.DLQ_REASON_HEADER)));
        assertThat(reasons).containsExactlyEntriesOf(refused);
        var listed = page(sandbox, ROLE, Map.of());
        assertThat(listed.getString("transactions[0].transaction_id")).isEqualTo(valid.get("transaction_id").asText());
        assertThat(listed.getString("transactions[0].issued_at")).isEqualTo("9999-12-31T23:59:59Z");
        String body = viewer().when().get(path(sandbox, ROLE)).then().statusCode(200).extract().asString();
        assertThat(body).contains("\"n\":[1" + "0".repeat(400) + ",0.0,15.0,0." + "0".repeat(997) + "1,0."
                + "0".repeat(998) + ",0,5" + "0".repeat(998) + "]");
    }

    @ParameterizedTest
    @CsvSource({ "name=a%00b, name", "cursor=%00, cursor", "sort_order=asc%00, sort_order", "page_size=5%00, page_size" })
    void aNulInAQueryValueIs422AtThatParameter(String query, String name) {
        viewer().urlEncodingEnabled(false).when().get(path(UUID.randomUUID(), ROLE) + "?" + query).then()
                .statusCode(422).body(equalTo("{\"detail\":[{\"loc\":[\"query\",\"" + name + "\"],\"msg\":\"" + NUL
                        + "\",\"type\":\"string_pattern_mismatch\"}]}"));
    }

    @Test
    void aNulInAnIdListOrThePathIs422AtIt() {
        viewer().urlEncodingEnabled(false).when().get(path(UUID.randomUUID(), ROLE) + "?role_ids=%00&legacy_role_ids=1,%00")
                .then().statusCode(422).body(equalTo("{\"detail\":[{\"loc\":[\"query\",\"role_ids\",0],\"msg\":\""
                        + NUL + "\",\"type\":\"string_pattern_mismatch\"},{\"loc\":[\"query\",\"legacy_role_ids\",1],"
                        + "\"msg\":\"" + NUL + "\",\"type\":\"string_pattern_mismatch\"}]}"));
        viewer().urlEncodingEnabled(false).when().get("/v1/history/sandbox/" + UUID.randomUUID() + "%00/role").then()
                .statusCode(422).body(equalTo("{\"detail\":[{\"loc\":[\"path\",\"sandbox_id\"],\"msg\":\"" + NUL
                        + "\",\"type\":\"string_pattern_mismatch\"}]}"));
    }

    @Test
    void aMalformedQueryStringIs422AtQuery() throws IOException {
        try (Socket socket = new Socket("localhost", RestAssured.port)) {
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path(UUID.randomUUID(), ROLE) + "?name=%zz HTTP/1.1\r\nHost: localhost\r\n"
                    + "Authorization: Bearer " + token(Permissions.SANDBOX_CONFIG_VIEW) + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 422 ").endsWith("\r\n\r\n{\"detail\":[{\"loc\":[\"query\"],"
                    + "\"msg\":\"Invalid query string: Malformed escape pair\",\"type\":\"json_invalid\"}]}");
        }
    }

    /**
     * An escape that is well-formed but not UTF-8 — {@code %FF}, an overlong form, an encoded surrogate, a sequence
     * cut short — is refused like a malformed escape pair, 422 at {@code ["query"]}, never read with U+FFFD in its
     * place; in a parameter the listing does not read too, and before the token is looked at, as {@code %zz} is.
     */
    @ParameterizedTest
    @CsvSource({ "name=%FF", "name=a%C0%80", "cursor=%ED%A0%80", "name=%E2%82", "role_ids=%E2%82", "other=%FF" })
    void anEscapeThatIsNotUtf8Is422AtQuery(String query) {
        String refused = "\r\n\r\n{\"detail\":[{\"loc\":[\"query\"],\"msg\":\"Invalid query string: not UTF-8\","
                + "\"type\":\"json_invalid\"}]}";
        String target = path(UUID.randomUUID(), ROLE) + "?" + query;
        assertThat(RawHttp.get(RestAssured.port, target, "Authorization: Bearer "
                + token(Permissions.SANDBOX_CONFIG_VIEW) + "\r\n")).startsWith("HTTP/1.1 422 ").endsWith(refused);
        assertThat(RawHttp.get(RestAssured.port, target, "")).startsWith("HTTP/1.1 422 ").endsWith(refused);
    }

    /**
     * A record that is not UTF-8 JSON text — UTF-16 or UTF-32, which Jackson would detect and read — is dead-lettered
     * as invalid UTF-8, and the record behind it is stored; a name sent percent-encoded in UTF-8 finds it.
     */
    @Test
    void aRecordInUtf16OrUtf32IsDeadLetteredAndTheNextIsStoredAndFoundByItsEncodedName() {
        UUID sandbox = UUID.randomUUID();
        String key = sandbox.toString();
        List<String> charsets = List.of("UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE");
        for (String charset : charsets) {
            kafka().sendRaw(Topics.SANDBOX_CONFIG_TRANSACTIONS, key.getBytes(StandardCharsets.UTF_8),
                    role(sandbox, UUID.randomUUID(), charset).toString().getBytes(Charset.forName(charset)));
        }
        ObjectNode valid = role(sandbox, UUID.randomUUID(), "caf\u00e9 \ud83d\ude00");
        kafka().send(Topics.SANDBOX_CONFIG_TRANSACTIONS, key, valid.toString());

        awaitTotal(sandbox, ROLE, 1);
        assertThat(kafka().read(Topics.deadLetter(Topics.SANDBOX_CONFIG_TRANSACTIONS), key, charsets.size(),
                Duration.ofSeconds(60))).hasSize(charsets.size()).allSatisfy(letter -> assertThat(letter.headers()
                        .get(Topics.DLQ_REASON_HEADER)).isEqualTo("value: JSON decode error, invalid UTF-8 [json_invalid]"));
        viewer().urlEncodingEnabled(false).when().get(path(sandbox, ROLE) + "?name=caf%C3%A9+%F0%9F%98%80").then()
                .statusCode(200).body("transactions.transaction_id", contains(valid.get("transaction_id").asText()));
    }
}
