package io.outpost.support.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.outpost.model.error.ErrorDetail;
import io.outpost.model.event.IsoInstantDeserializer;
import io.outpost.testsupport.RawBytes;

/** Every value of the wrong JSON type is named, not only the first, and the rest of the document is still read. */
class JsonBindingTest {

    record Entry(String name, Long count, @JsonDeserialize(using = IsoInstantDeserializer.class) Instant at,
            Map<String, Object> extra, List<String> tags) {
    }

    record Doc(@JsonProperty("the_title") String title, List<Entry> entries) {
    }

    private static final List<Object> BASE = ErrorDetail.loc("value");

    /** The services' mapper: Quarkus ignores unknown properties, and both customizers apply. */
    private static final ObjectMapper MAPPER = mapper();

    private static ObjectMapper mapper() {
        ObjectMapper mapper = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        new StrictScalarsCustomizer().customize(mapper);
        new ExactNumbersCustomizer().customize(mapper);
        return mapper;
    }

    private static JsonBinding.Read<Doc> read(String json) {
        return JsonBinding.read(MAPPER, json.getBytes(StandardCharsets.UTF_8), Doc.class, BASE);
    }

    private static List<String> described(List<ErrorDetail> faults) {
        return faults.stream().map(ErrorDetail::describe).toList();
    }

    @Test
    void aDocumentOfTheRightTypesIsReadWithoutFaults() {
        JsonBinding.Read<Doc> read = read("{\"the_title\":\"t\",\"entries\":[{\"name\":\"n\",\"count\":\"7\","
                + "\"at\":\"2026-01-02T03:04:05Z\",\"extra\":{\"k\":1.10},\"tags\":[\"a\"]}],\"unknown\":[1]}");
        assertThat(read.faults()).isEmpty();
        assertThat(read.value().title()).isEqualTo("t");
        Entry entry = read.value().entries().get(0);
        assertThat(entry.count()).isEqualTo(7L);
        assertThat(entry.at()).isEqualTo(Instant.parse("2026-01-02T03:04:05Z"));
        assertThat(entry.extra().get("k")).hasToString("1.10");
    }

    @Test
    void everyValueOfTheWrongTypeIsAFaultAtItsOwnLocation() {
        JsonBinding.Read<Doc> read = read("{\"the_title\":5,\"entries\":["
                + "{\"name\":1,\"count\":\"x\",\"at\":7,\"extra\":[1],\"tags\":\"t\"},"
                + "{\"name\":\"fine\",\"count\":2},"
                + "\"text\","
                + "{\"name\":\"n\",\"tags\":[1,\"a\",{}]}],\"unknown\":{\"the_title\":5}}");
        assertThat(described(read.faults())).containsExactly(
                "value.the_title: Input should be a valid string [json_invalid]",
                "value.entries.0.name: Input should be a valid string [json_invalid]",
                "value.entries.0.count: Input should be a valid integer [json_invalid]",
                "value.entries.0.at: " + ErrorDetail.datetimeParsing(List.of()).msg() + " [datetime_parsing]",
                "value.entries.0.extra: Input should be a valid dictionary [json_invalid]",
                "value.entries.0.tags: Input should be a valid list [json_invalid]",
                "value.entries.2: Input should be a valid dictionary [json_invalid]",
                "value.entries.3.tags.0: Input should be a valid string [json_invalid]",
                "value.entries.3.tags.2: Input should be a valid string [json_invalid]");
        // what read is the rest: faulty values left out, so the caller's checks can still report the others
        Doc doc = read.value();
        assertThat(doc.title()).isNull();
        assertThat(doc.entries()).hasSize(4);
        assertThat(doc.entries().get(0)).isEqualTo(new Entry(null, null, null, null, null));
        assertThat(doc.entries().get(1)).isEqualTo(new Entry("fine", 2L, null, null, null));
        assertThat(doc.entries().get(2)).isNull();
        assertThat(doc.entries().get(3).tags()).isEqualTo(Arrays.asList(null, "a", null));
    }

    @Test
    void aDocumentThatIsNotJsonOrNotAnObjectIsOneFaultAndNoValue() {
        for (String json : List.of("{\"the_title\":", "{\"the_title\":\"a\"} {}",
                "{\"the_title\":\"a\"}{\"the_title\":\"b\"}", "{\"the_title\":1} [", "[1,2] x", "[1,2", "\"text")) {
            JsonBinding.Read<Doc> read = read(json);
            assertThat(read.value()).as(json).isNull();
            assertThat(described(read.faults())).as(json).containsExactly("value: JSON decode error [json_invalid]");
        }
        // one JSON value, of another kind than the object expected: named as a field of that kind is
        for (String json : List.of("[1,2]", "[]", "\"text\"", "5", "1e999999", "true", " [{\"\\u0000\":1}] ")) {
            JsonBinding.Read<Doc> read = read(json);
            assertThat(read.value()).as(json).isNull();
            assertThat(described(read.faults())).as(json)
                    .containsExactly("value: Input should be a valid dictionary [json_invalid]");
        }
        // an array nested past the parser's limits: said so, though Jackson refused it as no object at its first token
        assertThat(described(read("[".repeat(1_500) + "]".repeat(1_500)).faults()))
                .containsExactly("value: JSON decode error, input exceeds the parser's limits [json_invalid]");
        // read as a tree, any JSON value is what was asked for
        assertThat(JsonBinding.read(MAPPER, "[1,2]".getBytes(StandardCharsets.UTF_8), JsonNode.class, BASE).faults())
                .isEmpty();
        // a wrong type met first, then nesting past the parser's limits: the document is refused as a whole
        String deep = "{\"the_title\":1,\"unknown\":" + "[".repeat(1_500) + "]".repeat(1_500) + "}";
        assertThat(read(deep).value()).isNull();
        assertThat(described(read(deep).faults())).containsExactly(
                "value: JSON decode error, input exceeds the parser's limits [json_invalid]");
        assertThat(read("null").value()).isNull();
        assertThat(read("null").faults()).isEmpty();
        for (byte[] none : new byte[][] { null, {} }) {
            assertThat(JsonBinding.read(MAPPER, none, Doc.class, BASE)).isEqualTo(new JsonBinding.Read<Doc>(null, List.of()));
        }
    }

    @Test
    void everyFaultyEntryOfALongListIsNamed() {
        StringBuilder json = new StringBuilder("{\"entries\":[");
        int entries = 20_000;
        for (int i = 0; i < entries; i++) {
            json.append(i == 0 ? "" : ",").append(i % 50 == 0 ? "{\"name\":" + i + "}" : "{\"name\":\"ok\"}");
        }
        JsonBinding.Read<Doc> read = read(json.append("]}").toString());
        assertThat(read.faults()).hasSize(entries / 50);
        assertThat(read.faults().get(1).loc()).isEqualTo(ErrorDetail.loc("value", "entries", 50, "name"));
        assertThat(read.value().entries()).hasSize(entries);
    }

    @Test
    void aWalkStopsAtItsMostFaultsAndReadsNoValue() {
        StringBuilder json = new StringBuilder("{\"entries\":[");
        int entries = JsonBinding.MAX_FAULTS + 500;
        for (int i = 0; i < entries; i++) {
            json.append(i == 0 ? "" : ",").append("{\"name\":").append(i).append('}');
        }
        JsonBinding.Read<Doc> read = read(json.append("]}").toString());
        assertThat(read.faults()).hasSize(JsonBinding.MAX_FAULTS);
        assertThat(read.faults().get(JsonBinding.MAX_FAULTS - 1).loc())
                .isEqualTo(ErrorDetail.loc("value", "entries", JsonBinding.MAX_FAULTS - 1, "name"));
        assertThat(read.value()).isNull();
    }

    @Test
    void checksAboutValuesAlreadyReportedAreDroppedAndTheRestOrderedByEntry() {
        ErrorDetail typeFault = ErrorDetail.jsonInvalid(ErrorDetail.loc("body", "n", 1, "message"), "wrong");
        ErrorDetail dropped = ErrorDetail.missing(ErrorDetail.loc("body", "n", 1, "message"));
        ErrorDetail under = ErrorDetail.missing(ErrorDetail.loc("body", "n", 1, "message", "x"));
        ErrorDetail sibling = ErrorDetail.missing(ErrorDetail.loc("body", "n", 1, "messages"));
        ErrorDetail first = ErrorDetail.stringTooShort(ErrorDetail.loc("body", "n", 0, "svc_url"), 1);
        ErrorDetail list = ErrorDetail.tooLong(ErrorDetail.loc("body", "n"), 100);
        ErrorDetail later = ErrorDetail.missing(ErrorDetail.loc("body", "n", 10, "message"));
        assertThat(JsonBinding.withChecks(List.of(typeFault), List.of(later, dropped, under, sibling, first, list)))
                .containsExactly(list, first, typeFault, sibling, later);
        assertThat(JsonBinding.withChecks(List.of(), List.of(later, first))).containsExactly(first, later);
    }

    /**
     * DESIGN §5: U+0000 is refused anywhere, keys included — also a key the type ignores and a key inside a value
     * skipped unread, which no check of the bound value meets. Each is located by its object's path; the rest of
     * the document is read.
     */
    @Test
    void aKeyHoldingUPlus0000IsAFaultWhereverItStandsAndTheRestIsRead() {
        JsonBinding.Read<Doc> read = read("{\"the_title\":\"t\",\"x\\u0000\":1,\"unknown\":{\"deep\":[{\"\\u0000\":2}]},"
                + "\"entries\":[{\"name\":\"n\",\"skip\\u0000me\":{\"a\":1}}]}");
        assertThat(read.faults()).containsExactly(
                ErrorDetail.unstorableKey(ErrorDetail.loc("value"), "x\u0000"),
                ErrorDetail.unstorableKey(ErrorDetail.loc("value", "unknown", "deep", 0), "\u0000"),
                ErrorDetail.unstorableKey(ErrorDetail.loc("value", "entries", 0), "skip\u0000me"));
        assertThat(read.faults().get(0).loc()).containsExactly("value", "x\uFFFD", "[key]");
        assertThat(read.value().title()).isEqualTo("t");
        assertThat(read.value().entries().get(0).name()).isEqualTo("n");
    }

    /** A key fault and a type fault in one document are both named. */
    @Test
    void aKeyFaultIsNamedBesideTypeFaults() {
        JsonBinding.Read<Doc> read = read("{\"the_title\":5,\"\\u0000\":1,\"entries\":[{\"name\":1}]}");
        assertThat(described(read.faults())).containsExactlyInAnyOrder(
                "value.\uFFFD.[key]: " + ErrorDetail.stringPatternMismatch(List.of()).msg() + " [string_pattern_mismatch]",
                "value.the_title: Input should be a valid string [json_invalid]",
                "value.entries.0.name: Input should be a valid string [json_invalid]");
    }

    /** An object naming a key twice is refused wherever it stands: which value was meant cannot be known. */
    @Test
    void aKeyGivenTwiceInOneObjectIsRefused() {
        for (String json : List.of("{\"the_title\":\"a\",\"the_title\":\"b\"}",
                "{\"entries\":[{\"name\":\"n\",\"extra\":{\"k\":1,\"k\":2}}]}",
                "{\"unknown\":{\"u\":1,\"u\":1}}")) {
            JsonBinding.Read<Doc> read = read(json);
            assertThat(read.value()).as(json).isNull();
            assertThat(described(read.faults())).as(json)
                    .containsExactly("value: JSON decode error, a key is given twice in one object [json_invalid]");
        }
        assertThat(read("{\"entries\":[{\"name\":\"a\"},{\"name\":\"b\"}]}").faults()).isEmpty();
    }

    /**
     * RFC 3629 and Unicode's table of well-formed byte sequences: Jackson's byte parser decodes an overlong form
     * ({@code C0 80} as U+0000, {@code C1 81} as "A") and a value beyond U+10FFFF, and refuses surrogates, stray
     * continuation bytes and cut sequences in its own words. Every one is the same fault, wherever it stands (a
     * value, a key, a document's end; before, across and after the 8- and 32-byte steps over ASCII).
     */
    @Test
    void malformedUtf8IsOneFaultAtTheBaseWhateverItsForm() {
        int[][] malformed = { { 0xC0, 0x80 }, { 0xC1, 0x81 }, { 0xE0, 0x80, 0x80 }, { 0xE0, 0x9F, 0xBF },
                { 0xF0, 0x80, 0x80, 0x80 }, { 0xF0, 0x8F, 0xBF, 0xBF }, // overlong: 2, 3 and 4 bytes
                { 0xED, 0xA0, 0x80 }, { 0xED, 0xBF, 0xBF }, // UTF-16 surrogates, encoded
                { 0xF4, 0x90, 0x80, 0x80 }, { 0xF5, 0x80, 0x80, 0x80 }, { 0xF8, 0x88, 0x80, 0x80, 0x80 }, { 0xFF },
                { 0x80 }, { 0xBF }, { 0xC3 }, { 0xE2, 0x82 }, { 0xF0, 0x9F, 0x98 }, { 0xC3, 0x28 }, { 0xE2, 0x28, 0xA1 } };
        for (int[] sequence : malformed) {
            for (int ascii = 0; ascii <= 40; ascii++) {
                String before = "x".repeat(ascii);
                for (String text : List.of("{\"the_title\":\"" + before + "@\"}", "{\"" + before + "@\":1}",
                        "{\"the_title\":\"" + before + "@")) {
                    byte[] json = RawBytes.withRaw(text, "@", sequence);
                    JsonBinding.Read<Doc> read = JsonBinding.read(MAPPER, json, Doc.class, BASE);
                    assertThat(read.value()).as(Arrays.toString(sequence)).isNull();
                    assertThat(described(read.faults())).as(Arrays.toString(sequence))
                            .containsExactly("value: JSON decode error, invalid UTF-8 [json_invalid]");
                }
            }
        }
    }

    /** The first and last character of each length of UTF-8 (and those around the surrogates) read as written. */
    @Test
    void wellFormedUtf8OfEachLengthIsRead() {
        for (String text : List.of("\u0080", "\u00e9", "\u07ff", "\u0800", "\u20ac", "\ud7ff", "\ue000", "\uffff",
                "\ud800\udc00", "\ud83d\ude00", "\udbff\udfff")) {
            for (int ascii = 0; ascii <= 40; ascii++) {
                String title = "x".repeat(ascii) + text + "y".repeat(40 - ascii);
                JsonBinding.Read<Doc> read = read("{\"the_title\":\"" + title + "\",\"" + text + "\":1}");
                assertThat(read.faults()).as(title).isEmpty();
                assertThat(read.value().title()).isEqualTo(title);
            }
        }
    }

    /**
     * Jackson guesses UTF-16 and UTF-32 from a document's first bytes and reads them; text of ASCII characters in
     * those is well-formed UTF-8, but JSON exchanged between systems is UTF-8 (RFC 8259 §8.1), which never holds a
     * 0x00 byte: a document holding one is refused as not UTF-8, in any of them, with or without a byte order mark,
     * and so is a raw 0x00 byte anywhere in a UTF-8 document (before, across and after the 8- and 32-byte steps).
     */
    @Test
    void aDocumentInUtf16OrUtf32OrHoldingA0x00ByteIsRefusedAsNotUtf8() {
        String doc = "{\"the_title\":\"t\",\"entries\":[{\"name\":\"n\"}]}";
        for (String charset : List.of("UTF-16LE", "UTF-16BE", "UTF-16", "UTF-32LE", "UTF-32BE", "UTF-32")) {
            byte[] json = doc.getBytes(java.nio.charset.Charset.forName(charset));
            JsonBinding.Read<Doc> read = JsonBinding.read(MAPPER, json, Doc.class, BASE);
            assertThat(read.value()).as(charset).isNull();
            assertThat(described(read.faults())).as(charset)
                    .containsExactly("value: JSON decode error, invalid UTF-8 [json_invalid]");
        }
        for (int ascii = 0; ascii <= 40; ascii++) {
            String before = "x".repeat(ascii);
            for (String text : List.of("{\"the_title\":\"" + before + "@\"}", "{\"" + before + "@\":1}",
                    "{\"the_title\":\"" + before + "\"}@", "@{\"the_title\":\"" + before + "\"}")) {
                byte[] json = RawBytes.withRaw(text, "@", 0x00);
                JsonBinding.Read<Doc> read = JsonBinding.read(MAPPER, json, Doc.class, BASE);
                assertThat(read.value()).as(text).isNull();
                assertThat(described(read.faults())).as(text)
                        .containsExactly("value: JSON decode error, invalid UTF-8 [json_invalid]");
            }
        }
        // escaped, U+0000 is JSON; what reads the value refuses it
        assertThat(read("{\"the_title\":\"a\\u0000b\"}").value().title()).isEqualTo("a\u0000b");
    }

    /** A UTF-8 byte order mark opening a document is ignored (RFC 8259 §8.1 lets a parser): it reads the same. */
    @Test
    void aUtf8ByteOrderMarkOpeningTheDocumentIsIgnored() {
        JsonBinding.Read<Doc> read = JsonBinding.read(MAPPER,
                RawBytes.withRaw("@{\"the_title\":\"t\u00e9\"}", "@", 0xEF, 0xBB, 0xBF), Doc.class, BASE);
        assertThat(read.faults()).isEmpty();
        assertThat(read.value().title()).isEqualTo("t\u00e9");
        // anywhere else it is U+FEFF: a character of a string, not JSON between values
        assertThat(described(JsonBinding.read(MAPPER, RawBytes.withRaw("{\"the_title\":\"t\"}@", "@", 0xEF, 0xBB,
                0xBF), Doc.class, BASE).faults())).containsExactly("value: JSON decode error [json_invalid]");
    }
}
