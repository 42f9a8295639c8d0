package io.outpost.support.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.outpost.model.error.AuthErrorCode;

/** The token of an {@code Authorization} value, read in place, is what stripping and cutting read before. */
class BearerValueTest {

    /** The reading before: strip, check the word, cut it off, strip again. */
    private static String before(String header) {
        String value = header.strip();
        if (value.length() <= "bearer ".length() || !value.regionMatches(true, 0, "bearer ", 0, "bearer ".length())) {
            return null;
        }
        return value.substring("bearer ".length()).strip();
    }

    @Test
    void readsTheSameTokenOrRefusesTheSameValues() {
        List<String> spaces = List.of("", " ", "  ", "\t", "\n", "\u2003", "\u3000", "\u001F", "\u00A0", "\u200B",
                " \t\u2003 ");
        List<String> words = List.of("Bearer", "bearer", "BEARER", "bEaReR", "Bearer\t", "Bearer\u00A0", "Basic",
                "Bear", "", "Bearerx");
        List<String> tokens = List.of("", "a", "abc.def.ghi", "a b", "a\u2003b", "\u00A0a\u00A0", "é", "\uD83D\uDE00",
                "x\u001Fy");
        List<String> headers = new ArrayList<>();
        for (String lead : spaces) {
            for (String word : words) {
                for (String gap : List.of(" ", "  ", " \u2003", "\u2003", "")) {
                    for (String token : tokens) {
                        for (String tail : spaces) {
                            headers.add(lead + word + gap + token + tail);
                        }
                    }
                }
            }
        }
        for (String header : headers) {
            String expected = before(header);
            if (expected == null) {
                assertThatThrownBy(() -> BearerTokenFilter.token(header)).as(header)
                        .isInstanceOfSatisfying(AuthRefusedException.class,
                                e -> assertThat(e.code()).isEqualTo(AuthErrorCode.MALFORMED_ACCESS))
                        .hasMessage("The Authorization value is not 'Bearer <token>'");
            } else {
                assertThat(BearerTokenFilter.token(header)).as(header).isEqualTo(expected);
            }
        }
    }
}
