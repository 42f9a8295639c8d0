package io.outpost.support.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.outpost.model.error.ErrorDetail;
import io.vertx.core.MultiMap;

/**
 * Headers that HTTP/1.1 cannot carry (its decoder answers 400 to a control character before any service code
 * runs) are still refused by the parser, whatever transport delivers them.
 */
class InputParserTest {

    @Test
    void nulInAHeaderIsStringPatternMismatchBeforeItsLength() {
        InputParser in = new InputParser(MultiMap.caseInsensitiveMultiMap(),
                MultiMap.caseInsensitiveMultiMap().add("x-svc-client-addr", "10.0.0.1\u0000" + "x".repeat(40)));

        assertNull(in.header("x-svc-client-addr", 32));
        InvalidInputException refused = assertThrows(InvalidInputException.class, in::throwIfInvalid);
        assertEquals(List.of(ErrorDetail.stringPatternMismatch(ErrorDetail.loc("header", "x-svc-client-addr"))),
                refused.details());
    }

    @Test
    void aStorableHeaderWithinItsLengthIsReturned() {
        InputParser in = new InputParser(MultiMap.caseInsensitiveMultiMap(),
                MultiMap.caseInsensitiveMultiMap().add("x-svc-client-addr", "10.0.0.1"));

        assertEquals("10.0.0.1", in.header("x-svc-client-addr", 32));
        assertTrue(in.isValid());
    }
}
