package io.outpost.model.event;

import static io.outpost.model.TestJson.MAPPER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.exc.MismatchedInputException;

/** Producers' timestamps are ISO-8601 strings; anything else fails as a wrong Instant (then datetime_parsing). */
class IsoInstantDeserializerTest {

    private static NotificationEvent read(String created) throws Exception {
        return MAPPER.readValue("{\"message\":\"m\",\"created\":" + created + "}", NotificationEvent.class);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "\"2026-03-04T05:06:07.5Z\"     | 2026-03-04T05:06:07.500Z",
            "\"2026-03-04T05:06:07+02:00\"  | 2026-03-04T03:06:07Z",
            "\"+300000-01-01T00:00:00Z\"    | +300000-01-01T00:00:00Z",
            "\"2026-12-31T23:59:59.9999999Z\" | 2026-12-31T23:59:59.999999Z",
            "\"2020-01-01T00:00:00.123456789Z\" | 2020-01-01T00:00:00.123456Z",
            "\"2020-01-01T00:00:00.000000999Z\" | 2020-01-01T00:00:00Z",
            "\"2026-06-30T23:59:60Z\"     | 2026-06-30T23:59:59Z",
            "null                           | " })
    void readsIsoStringsWhateverTheirRangeToTheMicrosecond(String json, String expected) throws Exception {
        assertThat(read(json).created()).isEqualTo(expected == null ? null : Instant.parse(expected));
    }

    @ParameterizedTest
    @ValueSource(strings = { "\"yesterday\"", "\"2026-02-30T00:00:00Z\"", "\"2026-03-04\"", "\"\"", "\" \"",
        "\"\\u0000\"", "1e400", "1700000000", "99999999999999999999", "true", "{}", "[\"2026-03-04T05:06:07Z\"]" })
    void refusesAnythingElseAsAWrongInstant(String json) {
        assertThatThrownBy(() -> read(json)).isInstanceOfSatisfying(MismatchedInputException.class,
                e -> assertThat(e.getTargetType()).isEqualTo(Instant.class));
    }

    @ParameterizedTest
    @ValueSource(strings = { "\"2026-13-01T00:00:00Z\"", "1" })
    void appliesToIssuedAtToo(String json) {
        assertThatThrownBy(() -> MAPPER.readValue("{\"issued_at\":" + json + "}", ConfigTransactionEvent.class))
                .isInstanceOfSatisfying(MismatchedInputException.class,
                        e -> assertThat(e.getTargetType()).isEqualTo(Instant.class));
    }
}
