package io.outpost.model.api;

import static io.outpost.model.TestJson.assertSerializesTo;
import static io.outpost.model.TestJson.fieldNames;
import static io.outpost.model.TestJson.read;
import static io.outpost.model.TestJson.roundTrip;
import static io.outpost.model.TestJson.tree;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PageMetaTest {

    @Test
    void readsEmptyObjectWithSpecDefaults() {
        PageMeta meta = read("{}", PageMeta.class);

        assertThat(meta.cursor()).isNull();
        assertThat(meta.pageSize()).isEqualTo(10);
        assertThat(meta.total()).isEqualTo(0L);
    }

    @Test
    void readsExplicitNullsAsDefaults() {
        PageMeta meta = read("""
                {"page_size":null,"total":null}""", PageMeta.class);

        assertThat(meta).isEqualTo(new PageMeta(null, 10, 0L));
    }

    @Test
    void keepsExplicitValues() {
        PageMeta meta = read("""
                {"cursor":"abc","page_size":50,"total":1234}""", PageMeta.class);

        assertThat(meta.cursor()).isEqualTo("abc");
        assertThat(meta.pageSize()).isEqualTo(50);
        assertThat(meta.total()).isEqualTo(1234L);
    }

    @Test
    void constructorAppliesDefaultsToNulls() {
        assertThat(new PageMeta("c", null, null)).isEqualTo(new PageMeta("c", 10, 0L));
    }

    @Test
    void writesSpecFieldNames() {
        assertSerializesTo(new PageMeta("next-1", 25, 80L), """
                {"cursor":"next-1","page_size":25,"total":80}""");
    }

    @Test
    void omitsAbsentCursorButAlwaysWritesSizeAndTotal() {
        assertThat(fieldNames(tree(new PageMeta(null, null, null))))
                .containsExactlyInAnyOrder("page_size", "total");
        assertSerializesTo(new PageMeta(null, null, null), """
                {"page_size":10,"total":0}""");
    }

    @Test
    void roundTripsWithAndWithoutCursor() {
        PageMeta more = new PageMeta("opaque", 50, 120L);
        PageMeta last = new PageMeta(null, 50, 120L);

        assertThat(roundTrip(more)).isEqualTo(more);
        assertThat(roundTrip(last)).isEqualTo(last);
    }
}
