package io.outpost.support.json;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Whether bytes are well-formed UTF-8 (RFC 3629; Unicode's table 3-7 of well-formed byte sequences). Jackson's
 * byte parser reads overlong forms ({@code C0 80} as U+0000, {@code C1 81} as "A", their 3- and 4-byte kin) and
 * values beyond U+10FFFF instead of refusing them, and has no setting that would (Jackson 2.21): a reader of the
 * document that decodes strictly would then see another document than this service stored. One pass, nothing
 * allocated; runs of ASCII — nearly all of a JSON document — are stepped over 32 and 8 bytes at a time.
 * docs/benchmarks.md ("UTF-8 validation") has its cost.
 */
final class Utf8 {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080808080808080L;
    /** The greatest continuation byte, {@code BF}: as Java's signed bytes, continuation bytes are those up to it. */
    private static final byte LAST_CONTINUATION = (byte) 0xBF;

    private Utf8() {
    }

    static boolean wellFormed(byte[] bytes) {
        int n = bytes.length;
        int i = 0;
        while (i < n) {
            byte lead = bytes[i];
            if (lead >= 0) { // ASCII, then 32 and 8 bytes at a time while all of them are
                i++;
                while (i + 32 <= n && ((word(bytes, i) | word(bytes, i + 8) | word(bytes, i + 16)
                        | word(bytes, i + 24)) & HIGH_BITS) == 0) {
                    i += 32;
                }
                while (i + 8 <= n && (word(bytes, i) & HIGH_BITS) == 0) {
                    i += 8;
                }
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

    /** The eight bytes from {@code at}: each of them ASCII when none has its high bit set. */
    private static long word(byte[] bytes, int at) {
        return (long) LONGS.get(bytes, at);
    }

    /**
     * Whether {@code second} may follow {@code lead}: a continuation byte, at least {@code low} after
     * {@code lowLead} and at most {@code high} after {@code highLead}.
     */
    private static boolean continues(byte lead, byte second, byte lowLead, byte low, byte highLead, byte high) {
        return second <= LAST_CONTINUATION && (lead != lowLead || second >= low) && (lead != highLead || second <= high);
    }
}
