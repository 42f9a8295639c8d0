package io.outpost.history.store;

import java.text.Normalizer;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The one rule by which the {@code name} filter matches role names without regard to case, applied in Java to
 * the name when it is stored and to the filter when it arrives. PostgreSQL's {@code lower()} follows the
 * database's {@code LC_CTYPE} (under {@code C} it leaves {@code É} alone, under a Turkish locale {@code I}
 * becomes {@code ı}); this gives the same answer on every database.
 *
 * <p>The rule: compatibility-normalise (NFKC: {@code ﬁ} is {@code fi}, full-width letters are ASCII), then fold
 * case fully (lower, upper, lower in the root locale: {@code ß}, {@code ẞ} and {@code SS} are all {@code ss}),
 * write every sigma as {@code σ} (final {@code ς} too), treat the Turkish dotted and dotless i as one letter
 * ({@code İ}, {@code I}, {@code ı}, {@code i} are all {@code i}), then compose (NFC).
 */
public final class NameFold {

    private NameFold() {
    }

    public static String fold(String text) {
        // most names are ASCII: NFKC and NFC leave ASCII alone, and lower, upper, lower is plain lower there
        return ascii(text) ? text.toLowerCase(Locale.ROOT) : foldFully(text);
    }

    /** The rule as stated, for any text. */
    static String foldFully(String text) {
        String compatible = Normalizer.normalize(text, Normalizer.Form.NFKC);
        String folded = compatible.toLowerCase(Locale.ROOT).toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT)
                .replace('ς', 'σ')
                .replace("i\u0307", "i");
        return Normalizer.normalize(folded, Normalizer.Form.NFC);
    }

    private static boolean ascii(String text) {
        for (int i = 0, n = text.length(); i < n; i++) {
            if (text.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /**
     * The folded name of a role snapshot: its {@code name} member when that is a string; null otherwise (no
     * {@code name}, or one that is not text), so that no name filter matches it.
     */
    public static String ofVersion(JsonNode version) {
        return version == null ? null : ofName(version.get("name"));
    }

    /** The folded form of a snapshot's {@code name} value; null when it is not a string. */
    public static String ofName(JsonNode name) {
        return name != null && name.isTextual() ? fold(name.textValue()) : null;
    }
}
