package io.outpost.model;

import static io.outpost.model.TestJson.MAPPER;
import static io.outpost.model.TestJson.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;

import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;
import io.outpost.model.event.NotificationEvent;

/** {@code custom_data} passed through as its text: what reading keeps, what it refuses, what validation then finds. */
class RawJsonObjectTest {

    private static final String PLAYER = "5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f";

    private static RawJsonObject customData(String json) {
        return read("{\"player_uuid\":\"" + PLAYER + "\",\"message\":\"m\",\"custom_data\":" + json + "}",
                NotificationEvent.class).customData();
    }

    @Test
    void keepsKeysInTheirOrderAndNumbersExactlyAsWrittenWithoutTheWhitespace() {
        RawJsonObject read = customData("""
                { "z" : 1.10 , "a":[ true,null, -0, 1e400, 1E-7, 123456789012345678901234567890 ],
                  "s":"q\\"\\\\\\u0001\\u00e9\\ud83d\\ude00/", "m":{ }, "e":[ ] }""");

        assertThat(read.json()).isEqualTo("{\"z\":1.10,\"a\":[true,null,-0,1e400,1E-7,123456789012345678901234567890],"
                + "\"s\":\"q\\\"\\\\\\u0001\u00e9\uD83D\uDE00/\",\"m\":{},\"e\":[]}");
    }

    @Test
    void theNextFieldIsReadAfterIt() {
        NotificationEvent event = read("{\"player_uuid\":\"" + PLAYER + "\",\"custom_data\":{\"a\":{\"b\":[1]}},"
                + "\"message\":\"after\",\"etag\":\"e\"}", NotificationEvent.class);

        assertThat(event.customData().json()).isEqualTo("{\"a\":{\"b\":[1]}}");
        assertThat(event.message()).isEqualTo("after");
        assertThat(event.etag()).isEqualTo("e");
    }

    @ParameterizedTest
    @ValueSource(strings = { "[1]", "\"text\"", "7", "1.5", "true" })
    void anythingButAnObjectIsTheWrongType(String value) {
        assertThatThrownBy(() -> MAPPER.readValue("{\"message\":\"m\",\"custom_data\":" + value + "}",
                NotificationEvent.class))
                .isInstanceOfSatisfying(MismatchedInputException.class,
                        e -> assertThat(e.getTargetType()).isEqualTo(RawJsonObject.class));
    }

    @Test
    void nullIsAbsent() {
        assertThat(customData("null")).isNull();
    }

    @Test
    void aKeyGivenTwiceAnywhereInsideFailsTheReadWithTheServicesParser() {
        ObjectMapper strict = MAPPER.copy().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

        assertThatThrownBy(() -> strict.readValue("{\"message\":\"m\",\"custom_data\":{\"a\":{\"k\":1,\"k\":2}}}",
                NotificationEvent.class))
                .hasRootCauseInstanceOf(JsonParseException.class).rootCause().hasMessageStartingWith("Duplicate field 'k'");
    }

    @Test
    void aTruncatedObjectFailsTheRead() {
        assertThatThrownBy(() -> MAPPER.readValue("{\"message\":\"m\",\"custom_data\":{\"a\":[1,",
                NotificationEvent.class)).hasRootCauseInstanceOf(JsonParseException.class);
    }

    @Test
    void whatTheStoreCannotKeepIsReadAndLeftForValidation() {
        List<Object> at = List.of("value", "custom_data");
        List<ErrorDetail> out = new ArrayList<>();

        assertThat(Constraints.json(out, at, customData("{\"ok\":[\"\\ud800\"]}"))).isFalse();
        assertThat(Constraints.json(out, at, customData("{\"k\\u0000\":1}"))).isFalse();
        assertThat(Constraints.json(out, at, customData("{\"fine\":\"\\ud83d\\ude00\"}"))).isTrue();

        assertThat(out).containsExactly(ErrorDetail.stringPatternMismatch(List.of("value", "custom_data", "ok", 0)),
                ErrorDetail.unstorableKey(at, "k\u0000"));
    }

    @Test
    void isWrittenInPlace() throws Exception {
        RawJsonObject value = new RawJsonObject("{\"n\":1e400,\"k\":[]}");

        assertThat(MAPPER.writeValueAsString(List.of(value, value))).isEqualTo("[{\"n\":1e400,\"k\":[]},{\"n\":1e400,\"k\":[]}]");
    }
}
