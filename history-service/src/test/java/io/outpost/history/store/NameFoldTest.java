package io.outpost.history.store;

import static org.assertj.core.api.Assertions.assertThat;

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
