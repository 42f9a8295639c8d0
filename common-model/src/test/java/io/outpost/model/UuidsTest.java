package io.outpost.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Uuids#parse} decides exactly as the check it replaced (a regular expression, then {@link UUID#fromString}),
 * and {@link Uuids#fromString} answers exactly as {@link UUID#fromString}.
 */
class UuidsTest {

    private static final Pattern BEFORE =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final String CANONICAL = "5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f";
    /** Characters UUID.fromString or a careless parser might take for a digit or a dash. */
    private static final char[] ODD = {'+', '-', '0', '9', 'a', 'f', 'A', 'F', 'g', 'G', 'x', ' ', '{', '}', '/', ':',
        '@', '`', '\u0660', '\u0669', '\uFF10', '\uFF21', '\uFF41', '\u2010', '\u2212', '\u0000', '\uD800'};

    /** The check before: the canonical shape, then UUID.fromString's reading of it. */
    private static UUID before(String text) {
        return text != null && BEFORE.matcher(text).matches() ? UUID.fromString(text) : null;
    }

    @Test
    void readsCanonicalUuidsOfEitherCase() {
        assertThat(Uuids.parse(CANONICAL)).isEqualTo(UUID.fromString(CANONICAL));
        assertThat(Uuids.parse(CANONICAL.toUpperCase())).isEqualTo(UUID.fromString(CANONICAL));
        assertThat(Uuids.parse("00000000-0000-0000-0000-000000000000")).isEqualTo(new UUID(0, 0));
        assertThat(Uuids.parse("ffffffff-ffff-ffff-ffff-ffffffffffff")).isEqualTo(new UUID(-1, -1));
        String mixed = "FfFfFfFf-0000-aAaA-8000-000000000001";
        assertThat(Uuids.parse(mixed)).isEqualTo(before(mixed))
                .isEqualTo(new UUID(0xFFFFFFFF0000AAAAL, 0x8000000000000001L));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1-1-1-1-1", "not-a-uuid", "5f0c6d4e8a1b4c2d9e3f0a1b2c3d4e5f",
        "{5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f}", "5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5",
        "5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f0", " 5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f",
        "5f0c6d4e8-a1b-4c2d-9e3f-0a1b2c3d4e5f", "5f0c6d4e-8a1b4-c2d-9e3f-0a1b2c3d4e5f",
        "+f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f", "-f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f",
        "5f0c6d4e-+a1b-4c2d-9e3f-0a1b2c3d4e5f", "5f0c6d4e-8a1b-4c2d-9e3f--a1b2c3d4e5f",
        "5f0c6d4e-8a1b-4c2d-9e3f-+a1b2c3d4e5f", "\u06605f0c6d4-8a1b-4c2d-9e3f-0a1b2c3d4e5f",
        "\uFF15f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f", "5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5\uFF26",
        "5f0c6d4g-8a1b-4c2d-9e3f-0a1b2c3d4e5f", "5f0c6d4e_8a1b_4c2d_9e3f_0a1b2c3d4e5f",
        "5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e\u0660f"})
    void refusesEverythingElse(String text) {
        assertThat(before(text)).isNull();
        assertThat(Uuids.parse(text)).isNull();
        assertThat(Uuids.isLowerCanonical(text)).isFalse();
    }

    @Test
    void refusesNull() {
        assertThat(Uuids.parse(null)).isNull();
        assertThat(Uuids.isLowerCanonical(null)).isFalse();
        assertThatThrownBy(() -> Uuids.fromString(null)).isInstanceOf(NullPointerException.class);
    }

    /** Every single-character change, insertion and deletion of a canonical uuid, in both cases. */
    @Test
    void decidesAsBeforeOnEveryNearMiss() {
        for (String base : List.of(CANONICAL, CANONICAL.toUpperCase(), "00000000-0000-0000-0000-000000000000")) {
            for (String text : nearMisses(base)) {
                assertSameAsBefore(text);
            }
        }
    }

    @Test
    void decidesAsBeforeOnRandomText() {
        Random random = new Random(7);
        String alphabet = "0123456789abcdefABCDEFgG-+ \u0660\uFF10\uFF21";
        for (int n = 0; n < 200_000; n++) {
            StringBuilder text = new StringBuilder();
            int length = random.nextInt(8) == 0 ? random.nextInt(40) : 36;
            for (int i = 0; i < length; i++) {
                boolean dash = length == 36 && (i == 8 || i == 13 || i == 18 || i == 23) && random.nextInt(10) > 0;
                int digits = random.nextInt(10) == 0 ? alphabet.length() : 22; // mostly hex digits
                text.append(dash ? '-' : alphabet.charAt(random.nextInt(digits)));
            }
            assertSameAsBefore(text.toString());
        }
    }

    @Test
    void recognisesOnlyWhatToStringWrites() {
        assertThat(Uuids.isLowerCanonical(CANONICAL)).isTrue();
        assertThat(Uuids.isLowerCanonical(CANONICAL.toUpperCase())).isFalse();
        Random random = new Random(11);
        for (int n = 0; n < 10_000; n++) {
            String written = new UUID(random.nextLong(), random.nextLong()).toString();
            assertThat(Uuids.isLowerCanonical(written)).as(written).isTrue();
        }
        for (String text : nearMisses(CANONICAL)) {
            assertThat(Uuids.isLowerCanonical(text)).as(text).isEqualTo(text.equals(before(text) + ""));
        }
    }

    private static void assertSameAsBefore(String text) {
        assertThat(Uuids.parse(text)).as(text).isEqualTo(before(text));
        UUID lenient;
        try {
            lenient = UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            assertThatThrownBy(() -> Uuids.fromString(text)).as(text).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(e.getMessage());
            return;
        }
        assertThat(Uuids.fromString(text)).as(text).isEqualTo(lenient);
    }

    private static List<String> nearMisses(String base) {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i <= base.length(); i++) {
            if (i < base.length()) {
                texts.add(base.substring(0, i) + base.substring(i + 1));
            }
            for (char c : ODD) {
                if (i < base.length()) {
                    texts.add(base.substring(0, i) + c + base.substring(i + 1));
                }
                texts.add(base.substring(0, i) + c + base.substring(i));
            }
        }
        return texts;
    }
}
