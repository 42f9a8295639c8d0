package io.outpost.history.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/** The one case-folding rule of the name filter, on the letters where a naive lower() goes wrong. */
class NameFoldTest {

    @ParameterizedTest
    @CsvSource({
            "Admin, admin",
            "STRASSE, strasse", "Straße, strasse", "STRAẞE, strasse",
            "ΣΟΦΊΑΣ, σοφίασ", "σοφίας, σοφίασ", "Σοφίασ, σοφίασ",
            "İSTANBUL, istanbul", "istanbul, istanbul", "ISTANBUL, istanbul",
            "KIRMIZI, kirmizi", "kırmızı, kirmizi",
            "ÉCLAIR, éclair", "E\u0301clair, éclair",
            "ﬁnal, final", "ＡＢＣ, abc", "ſtop, stop", "\u212Aelvin, kelvin" })
    void foldsCaseTheSameWayWhateverTheLettersForm(String name, String folded) {
        assertThat(NameFold.fold(name)).isEqualTo(folded);
    }

    /** The ASCII shortcut gives what the full rule gives: every character, every pair, random longer names. */
    @Test
    void foldsAsciiExactlyAsTheFullRule() {
        for (char a = 0; a < 0x80; a++) {
            assertThat(NameFold.fold(String.valueOf(a))).isEqualTo(NameFold.foldFully(String.valueOf(a)));
            for (char b = 0; b < 0x80; b++) {
                String pair = new String(new char[] { a, b });
                assertThat(NameFold.fold(pair)).as(pair).isEqualTo(NameFold.foldFully(pair));
            }
        }
        Random random = new Random(5);
        for (int n = 0; n < 20_000; n++) {
            char[] name = new char[1 + random.nextInt(40)];
            for (int i = 0; i < name.length; i++) {
                name[i] = (char) random.nextInt(0x80);
            }
            String text = new String(name);
            assertThat(NameFold.fold(text)).as(text).isEqualTo(NameFold.foldFully(text));
        }
    }

    @Test
    void aFoldedFilterIsASubstringOfEveryFoldedSpellingOfTheName() {
        String stored = NameFold.fold("Große ΣΟΦΊΑΣ İzmir");
        for (String filter : new String[] { "GROSSE", "große", "σοφίας ", "ας", "ΑΣ İ", "izmir", "IZMIR", "ızmır" }) {
            assertThat(stored).as(filter).contains(NameFold.fold(filter));
        }
    }

    @Test
    void onlyAStringNameIsMatchable() {
        JsonNodeFactory json = JsonNodeFactory.instance;
        assertThat(NameFold.ofVersion(json.objectNode().put("name", "Ädmin"))).isEqualTo("ädmin");
        assertThat(NameFold.ofVersion(json.objectNode().put("name", 42))).isNull();
        assertThat(NameFold.ofVersion(json.objectNode().putNull("name"))).isNull();
        assertThat(NameFold.ofVersion(json.objectNode().put("title", "x"))).isNull();
        assertThat(NameFold.ofVersion(json.textNode("name"))).isNull();
    }
}
