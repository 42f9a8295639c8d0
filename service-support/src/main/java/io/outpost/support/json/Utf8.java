package io.outpost.support.json;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Whether bytes are UTF-8 JSON text as far as their encoding goes: well-formed UTF-8 (RFC 3629; Unicode's table 3-7
 * of well-formed byte sequences) holding no 0x00 byte. Jackson's byte parser reads overlong forms ({@code C0 80} as
 * U+0000, {@code C1 81} as "A", their 3- and 4-byte kin) and values beyond U+10FFFF instead of refusing them, and
 * has no setting that would (Jackson 2.21): a reader of the document that decodes strictly would then see another
 * document than this service stored. It also guesses the encoding from the first bytes and reads UTF-16 and UTF-32
 * without a byte order mark, which may well be well-formed UTF-8 ({@code {"a":1}} in UTF-16LE is). But every JSON
 * text holds ASCII characters (its punctuation, a string's quotes, digits, {@code true}), each written with a 0x00
 * byte beside it in UTF-16 (three in UTF-32), while JSON text in UTF-8 holds no 0x00 byte at all (U+0000 is a
 * control character: a JSON string holds it only escaped); so refusing every 0x00 byte refuses them, as RFC 8259
 * §8.1 has JSON exchanged between systems be UTF-8. One pass, nothing allocated; runs of ASCII — nearly all of a
 * JSON document — are stepped over 32 and 8 bytes at a time, with the 0x00 check at the cost of a subtraction and
 * an or a word. docs/benchmarks.md ("UTF-8 validation") has its cost.
 */
final class Utf8 {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080808080808080L;
    private static final long LOW_BITS = 0x0101010101010101L;
    /** The greatest continuation byte, {@code BF}: as Java's signed bytes, continuation bytes are those up to it. */
    private static final byte LAST_CONTINUATION = (byte) 0xBF;

    private Utf8() {
    }

    static boolean wellFormedWithoutNul(byte[] bytes) {
        int n = bytes.length;
        int i = 0;
        while (i < n) {
            byte lead = bytes[i];
            if (lead > 0) { // ASCII but 0x00, then 32 and 8 bytes at a time while all of them are
                i++;
                while (i + 32 <= n
                        && ascii(word(bytes, i), word(bytes, i + 8), word(bytes, i + 16), word(bytes, i + 24))) {
                    i += 32;
                }
                while (i + 8 <= n && ascii(word(bytes, i))) {
                    i += 8;
                }
            } else if (lead == 0) {
                return false;
            } else if (lead < (byte) 0xE0) { // two bytes: C2..DF (80..BF continue; C0, C1 are only ever overlong)
                if (lead < (byte) 0xC2 || i + 1 >= n || bytes[i + 1] > LAST_CONTINUATION) {
                    return false;
                }
                i += 2;
            } else if (lead < (byte) 0xF0) { // three: E0 needs A0..BF (else overlong), ED 80..9F (else a surrogate)
                if (i + 2 >= n || !continues(lead, bytes[i + 1], (byte) 0xE0, (byte) 0xA0, (byte) 0xED, (byte) 0x9F)
                        || bytes[i + 2] > LAST_CONTINUATION) {
                    return false;
                }
                i += 3;
            } else { // four: F0 needs 90..BF (else overlong), F4 80..8F (else beyond U+10FFFF); F5..FF never
                if (lead > (byte) 0xF4 || i + 3 >= n
                        || !continues(lead, bytes[i + 1], (byte) 0xF0, (byte) 0x90, (byte) 0xF4, (byte) 0x8F)
                        || bytes[i + 2] > LAST_CONTINUATION || bytes[i + 3] > LAST_CONTINUATION) {
                    return false;
                }
                i += 4;
            }
        }
        return true;
    }

    /** The eight bytes from {@code at}. */
    private static long word(byte[] bytes, int at) {
        return (long) LONGS.get(bytes, at);
    }

    /**
     * Whether each byte of {@code word} is 0x01..0x7F. A byte of 0x80 or above has its high bit set in the word;
     * subtracting 1 from every byte turns the lowest 0x00 byte into 0xFF (no byte below it borrows: each of them is
     * at least 1), so a word holding a 0x00 byte has a high bit set in the difference, and one holding none has no
     * borrow at all (each byte of 0x01..0x7F becomes 0x00..0x7E).
     */
    private static boolean ascii(long word) {
        return ((word | (word - LOW_BITS)) & HIGH_BITS) == 0;
    }

    /** The same for four words at once. */
    private static boolean ascii(long a, long b, long c, long d) {
        return ((a | b | c | d | (a - LOW_BITS) | (b - LOW_BITS) | (c - LOW_BITS) | (d - LOW_BITS)) & HIGH_BITS) == 0;
    }

    /**
     * Whether {@code second} may follow {@code lead}: a continuation byte, at least {@code low} after
     * {@code lowLead} and at most {@code high} after {@code highLead}.
     */
    private static boolean continues(byte lead, byte second, byte lowLead, byte low, byte highLead, byte high) {
        return second <= LAST_CONTINUATION && (lead != lowLead || second >= low) && (lead != highLead || second <= high);
    }
}
