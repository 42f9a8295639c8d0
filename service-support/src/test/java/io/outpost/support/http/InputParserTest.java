package io.outpost.support.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.Test;

import io.outpost.model.error.ErrorDetail;
import io.outpost.model.error.ValidationErrorResponse;
import io.vertx.core.MultiMap;

/**
 * Headers that HTTP/1.1 cannot carry (its decoder answers 400 to a control character before any service code
 * runs) are still refused by the parser, whatever transport delivers them.
 */
class InputParserTest {

    /**
     * A control character — a bare CR, LF, the CR LF of a folded line, U+0000, any other below U+0020 but the tab,
     * U+007F — is one fault at the header, before its length: an HTTP/2 decoder hands them over unchecked.
     */
    @Test
    void aControlCharacterInAHeaderIsAValueErrorBeforeItsLength() {
        List<ErrorDetail> control = List.of(ErrorDetail.valueError(ErrorDetail.loc("header", "x-svc-client-addr"),
                "control character"));
        for (String value : List.of("10.0.0.1\r", "10.0.0.1\n", "10.0.0.1\r\n 2", "10.0.0.1\u0000", "\u0001",
                "10\u001f", "10.0.0.1\u007f")) {
            InputParser in = new InputParser(Map.of(),
                    MultiMap.caseInsensitiveMultiMap().add("x-svc-client-addr", value + "x".repeat(40)));

            assertNull(in.header("x-svc-client-addr", 32), value);
            InvalidInputException refused = assertThrows(InvalidInputException.class, in::throwIfInvalid);
            assertEquals(control, refused.details(), value);
        }
        InputParser tab = new InputParser(Map.of(),
                MultiMap.caseInsensitiveMultiMap().add("x-svc-client-addr", "10.0.0.1\t2"));
        assertEquals("10.0.0.1\t2", tab.header("x-svc-client-addr", 32));
        assertTrue(tab.isValid());
    }

    @Test
    void aStorableHeaderWithinItsLengthIsReturned() {
        InputParser in = new InputParser(Map.of(),
                MultiMap.caseInsensitiveMultiMap().add("x-svc-client-addr", "10.0.0.1"));

        assertEquals("10.0.0.1", in.header("x-svc-client-addr", 32));
        assertTrue(in.isValid());
    }

    /** Netty hands a header's bytes over one a character; the limit counts characters of the UTF-8 text. */
    @Test
    void aHeaderIsCountedInCharactersOfItsUtf8Text() {
        String thirtyTwo = "é".repeat(16) + "😀".repeat(16);
        InputParser in = new InputParser(Map.of(), MultiMap.caseInsensitiveMultiMap()
                .add("x-svc-client-addr", asNettyReadsIt(thirtyTwo)));

        assertEquals(thirtyTwo, in.header("x-svc-client-addr", 32));
        assertTrue(in.isValid());

        InputParser over = new InputParser(Map.of(), MultiMap.caseInsensitiveMultiMap()
                .add("x-svc-client-addr", asNettyReadsIt(thirtyTwo + "é")));
        assertNull(over.header("x-svc-client-addr", 32));
        InvalidInputException refused = assertThrows(InvalidInputException.class, over::throwIfInvalid);
        assertEquals(List.of(ErrorDetail.stringTooLong(ErrorDetail.loc("header", "x-svc-client-addr"), 32)),
                refused.details());
    }

    /** A header sent on two lines is one value, joined by ", " (RFC 9110 §5.3), and its limit holds for the whole. */
    @Test
    void aHeaderSentTwiceIsOneValueCountedWhole() {
        InputParser in = new InputParser(Map.of(), MultiMap.caseInsensitiveMultiMap()
                .add("x-svc-client-addr", "10.0.0.1").add("x-svc-client-addr", "10.0.0.2"));
        assertEquals("10.0.0.1, 10.0.0.2", in.header("x-svc-client-addr", 32));

        InputParser over = new InputParser(Map.of(), MultiMap.caseInsensitiveMultiMap()
                .add("x-svc-client-addr", "1.2.3.4").add("x-svc-client-addr", "a".repeat(32)));
        assertNull(over.header("x-svc-client-addr", 32));
        assertThrows(InvalidInputException.class, over::throwIfInvalid);
    }

    /**
     * Bytes that are not well-formed UTF-8 — {@code FF}, an overlong form ({@code C0 80}, U+0000 to a lenient
     * decoder), an encoded surrogate, a value beyond U+10FFFF, a stray continuation byte, a sequence cut short (also
     * at the end of one of two lines) — are one fault at the header, never read with U+FFFD in their place; a
     * character beyond U+00FF was not read from one byte and is refused the same way. Nothing is unescaped.
     */
    @Test
    void aHeaderThatIsNotUtf8IsAValueErrorAtTheHeader() {
        List<ErrorDetail> notUtf8 = List.of(ErrorDetail.valueError(ErrorDetail.loc("header", "x-svc-client-addr"),
                "not UTF-8"));
        for (List<String> lines : List.of(List.of("10.0.0.\u00ff"), List.of("a\u00c0\u0080"),
                List.of("\u00ed\u00a0\u0080"), List.of("\u00f4\u0090\u0080\u0080"), List.of("\u0080"),
                List.of("caf\u00c3"), List.of("a\u00e2\u0082", "\u00ac"), List.of("10.0.0.1", "\u00fe"),
                List.of("\u0100"))) {
            MultiMap headers = MultiMap.caseInsensitiveMultiMap();
            lines.forEach(line -> headers.add("x-svc-client-addr", line));
            InputParser in = new InputParser(Map.of(), headers);

            assertNull(in.header("x-svc-client-addr", 32), lines.toString());
            InvalidInputException refused = assertThrows(InvalidInputException.class, in::throwIfInvalid);
            assertEquals(notUtf8, refused.details(), lines.toString());
        }
        InputParser escapes = new InputParser(Map.of(), MultiMap.caseInsensitiveMultiMap()
                .add("x-svc-client-addr", "%FF+%C3%A9"));
        assertEquals("%FF+%C3%A9", escapes.header("x-svc-client-addr", 32));
        assertTrue(escapes.isValid());
    }

    private static String asNettyReadsIt(String text) {
        return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    /**
     * A query that does not decode is one fault at {@code ["query"]} and no parameter is read from it: for a
     * transport without {@link RequestUriCheck} before the parser, which refuses it first over HTTP.
     */
    @Test
    void aQueryThatIsNotUtf8IsOneFaultAndNoParameterIsRead() {
        InputParser in = new InputParser("/p?cursor=ok&name=%FF", MultiMap.caseInsensitiveMultiMap());

        assertNull(in.queryString("cursor", 1, 128));
        InvalidInputException refused = assertThrows(InvalidInputException.class, in::throwIfInvalid);
        assertEquals(List.of(ErrorDetail.jsonInvalid(ErrorDetail.loc("query"), "Invalid query string: not UTF-8")),
                refused.details());

        InputParser valid = new InputParser("/p?cursor=%C3%A9+%F0%9F%98%80", MultiMap.caseInsensitiveMultiMap());
        assertEquals("\u00e9 \ud83d\ude00", valid.queryString("cursor", 1, 128));
        assertTrue(valid.isValid());
    }

    /**
     * A query of commas (the request line's 8 KiB hold ≈ 8,000 empty items) is ≈ 8,000 faults: the 422 lists the
     * first 20 and says in one more entry, where they lie, how many it did not list.
     */
    @Test
    void a422ListsTwentyFaultsThenHowManyMore() {
        String uri = "/v1/x?role_ids=" + ",".repeat(7_999);
        InputParser in = new InputParser(uri, MultiMap.caseInsensitiveMultiMap());
        in.queryUuids("role_ids");
        InvalidInputException refused = assertThrows(InvalidInputException.class, in::throwIfInvalid);
        assertEquals(8_000, refused.details().size());

        Response answer = ErrorMappers.unprocessable(refused.details());
        List<ErrorDetail> listed = ((ValidationErrorResponse) answer.getEntity()).detail();

        assertEquals(21, listed.size());
        assertEquals(ErrorDetail.loc("query", "role_ids", 19), listed.get(19).loc());
        assertEquals(new ErrorDetail(ErrorDetail.loc("query", "role_ids"), "Value error, 7,980 more faults not listed",
                "value_error"), listed.get(20));
    }

    /** Twenty faults are listed as they are; faults past them in different places are counted at {@code []}. */
    @Test
    void aFewFaultsAreListedWholeAndScatteredOnesCountedAtTheTop() {
        List<ErrorDetail> twenty = java.util.stream.IntStream.range(0, 20)
                .mapToObj(i -> ErrorDetail.missing(ErrorDetail.loc("body", "f" + i))).toList();
        assertEquals(twenty, ValidationErrorResponse.of(twenty).detail());

        List<ErrorDetail> more = new java.util.ArrayList<>(twenty);
        more.add(ErrorDetail.missing(ErrorDetail.loc("body", "x")));
        more.add(ErrorDetail.uuidParsing(ErrorDetail.loc("query", "y")));
        assertEquals(ErrorDetail.valueError(List.of(), "2 more faults not listed"),
                ValidationErrorResponse.of(more).detail().get(20));
    }
}
