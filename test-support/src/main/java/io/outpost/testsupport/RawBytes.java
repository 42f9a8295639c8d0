package io.outpost.testsupport;

import java.nio.charset.StandardCharsets;

/** Documents that are not quite UTF-8, for tests of what reads them. */
public final class RawBytes {

    private RawBytes() {
    }

    /** {@code text} as UTF-8 with its first {@code marker} replaced by the bytes {@code raw} (each 0..255). */
    public static byte[] withRaw(String text, String marker, int... raw) {
        int at = text.indexOf(marker);
        byte[] before = text.substring(0, at).getBytes(StandardCharsets.UTF_8);
        byte[] after = text.substring(at + marker.length()).getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[before.length + raw.length + after.length];
        System.arraycopy(before, 0, all, 0, before.length);
        for (int i = 0; i < raw.length; i++) {
            all[before.length + i] = (byte) raw[i];
        }
        System.arraycopy(after, 0, all, before.length + raw.length, after.length);
        return all;
    }
}
