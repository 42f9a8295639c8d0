package io.outpost.support.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The one percent-decoder (query strings, form bodies, Basic credentials, the Authorization cookie): UTF-8 or
 * nothing, never U+FFFD in place of what was sent; and the query split around it as Netty's decoder split it.
 */
class PercentDecodingTest {

    private static String decode(String text) {
        String fromText = PercentDecoding.decode(text, 0, text.length());
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        assertThat(PercentDecoding.decode(bytes, 0, bytes.length)).as(text).isEqualTo(fromText);
        return fromText;
    }

    @Test
    void wellFormedEscapesDecodeAsUtf8WithPlusASpace() {
        assertThat(decode("")).isEmpty();
        assertThat(decode("plain-text_.~")).isEqualTo("plain-text_.~");
        assertThat(decode("a+b%2Bc%20d")).isEqualTo("a b+c d");
        assertThat(decode("%C3%A9%c3%a9")).isEqualTo("\u00e9\u00e9");
        assertThat(decode("%E2%82%AC%F0%9F%98%80")).isEqualTo("\u20ac\ud83d\ude00");
        assertThat(decode("%00%7F")).isEqualTo("\u0000\u007f"); // for the reader to judge
        assertThat(decode("caf\u00c3\u00a9")).isEqualTo("caf\u00e9"); // bytes sent unescaped, read one a character
    }

    @Test
    void whatIsNotUtf8OrNotAnEscapeDoesNotDecode() {
        for (String text : List.of("%FF", "a%FE", "%C0%80", "%C1%81", "%E0%80%80", "%ED%A0%80", "%ED%BF%BF",
                "%F4%90%80%80", "%F5%80%80%80", "%80", "%BF", "%E2%82", "%E2%82x", "%F0%9F%98", "%C3%28", "%C3+%A9",
                "\u00ff", "\u00c3", "%", "%4", "%zz", "a%g0", "%%41")) {
            assertThat(decode(text)).as(text).isNull();
        }
        assertThat(PercentDecoding.decode("\u20ac", 0, 1)).as("not read from one byte").isNull();
    }

    @Test
    void onlyTheRangeIsDecoded() {
        assertThat(PercentDecoding.decode("x%41%FFy", 1, 4)).isEqualTo("A");
        byte[] bytes = "x%41%FFy".getBytes(StandardCharsets.US_ASCII);
        assertThat(PercentDecoding.decode(bytes, 1, 4)).isEqualTo("A");
        assertThat(PercentDecoding.decode(bytes, 1, 7)).isNull();
    }

    @Test
    void theQueryIsSplitAsBefore() {
        assertThat(InputParser.query("/p")).isEmpty();
        assertThat(InputParser.query("/p?")).isEmpty();
        assertThat(InputParser.query("/p?a=1&&b=2&")).isEqualTo(Map.of("a", List.of("1"), "b", List.of("2")));
        assertThat(InputParser.query("/p?a=b=c&flag&=x&==y=z&=&e="))
                .isEqualTo(Map.of("a", List.of("b=c"), "flag", List.of(""), "x", List.of(""), "y", List.of("z"),
                        "e", List.of("")));
        assertThat(InputParser.query("/p?a=1;b=2&c=%3B")).isEqualTo(Map.of("a", List.of("1;b=2"), "c", List.of(";")));
        assertThat(InputParser.query("/p?a=1#b=2&c")).isEqualTo(Map.of("a", List.of("1")));
        assertThat(InputParser.query("/p#x?a=1")).isEmpty();
        assertThat(InputParser.query("/p?a=%41&%41=b&a+b=c+d")).isEqualTo(Map.of("a", List.of("A"), "A", List.of("b"),
                "a b", List.of("c d")));
        assertThat(InputParser.query("/p?ok=1&bad=%FF")).isNull();
        assertThat(InputParser.query("/p?%E2%82=1")).isNull();
        assertThat(InputParser.query("/p?a=%E2&b=%82%AC")).isNull(); // each parameter is decoded on its own
    }
}
