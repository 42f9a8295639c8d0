package io.outpost.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.apache.kafka.clients.producer.RecordMetadata;
import org.assertj.core.api.SoftAssertions;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.outpost.model.Topics;
import io.outpost.testsupport.TestKafka;

/**
 * Issue 9, point 7: what an attacker or a buggy producer puts on the two topics, interleaved with valid records.
 * Every valid record is stored and delivered within seconds, in order; every poison record lands in
 * {@code <topic>.dlq} exactly once, with its key and value, and an {@code outpost-dlq-reason} naming the DESIGN §5
 * type(s) of its fault; nothing else lands there. Issue 40: docs/asyncapi.yaml agrees — every stored record meets its
 * schemas, every refused one breaks them where a schema can say why, and every dead letter's headers meet theirs.
 *
 * <p>Where DESIGN §5 leaves two words possible (U+0000 inside a uuid is both a forbidden character and not a
 * uuid), either is accepted; the reason must name at least one and nothing outside the set.
 */
class PoisonRecordsTest {

    private static final String SOURCE_HEADER = "outpost-dlq-source";
    private static final String TRUNCATED_HEADER = "outpost-dlq-truncated";
    /** The type closing each "loc: msg [type]" of a reason (faults are joined with "; "; a loc may hold "[key]"). */
    private static final Pattern TYPE = Pattern.compile("\\[([a-z_]+)](?=;|$)");
    /** Just under the broker's default record limit (1 MiB), so the record is accepted and refused by us. */
    private static final int NEARLY_1_MIB = (1 << 20) - 8 * 1024;
    private static final int DEEP = 100_000;
    private static final Duration WITHIN_SECONDS = Duration.ofSeconds(30);
    private static final int PLAYER = 11;

    private static final String PATTERN = "string_pattern_mismatch";
    private static final String DATETIME = "datetime_parsing";
    private static final String TOO_LONG = "string_too_long";
    private static final String JSON_INVALID = "json_invalid";
    private static final String LITERAL = "literal_error";
    private static final String MISSING = "missing";

    /**
     * One record as sent: its place in the topic, the DESIGN §5 types it must be refused with (none: valid), and
     * whether docs/asyncapi.yaml's schemas can tell it is refused (a key naming another player cannot be).
     */
    private record Sent(String what, String key, byte[] value, Set<String> refusedAs, boolean schemaCanSay,
            int partition, long offset) {
        String source(String topic) {
            return topic + "/" + partition + "/" + offset;
        }
    }

    private static TestKafka kafka;
    private static Client gateway;
    private static final AsyncApiDocument CONTRACT = AsyncApiDocument.load();

    @BeforeAll
    static void start() {
        gateway = new Client(E2eStack.get().gatewayUrl());
        kafka = new TestKafka();
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    @Test
    void poisonNotificationsAreDeadLetteredOnceAndValidOnesDelivered() {
        String p = E2eStack.PLAYERS.get(PLAYER).toString();
        String topic = Topics.PLAYER_NOTIFICATIONS;
        List<Object[]> mix = List.of(
                valid("plain", p, note(p, "valid 0")),
                poison("NUL in message", p, note(p, "nul\u0000inside"), PATTERN),
                valid("every field", p, "{\"player_uuid\":\"" + p + "\",\"message\":\"valid 1 \u2713\uD83C\uDFAE\","
                        + "\"svc_url\":\"/items/1\",\"etag\":\"e1\",\"notification_id\":\"poison-" + UUID.randomUUID()
                        + "\",\"custom_data\":{\"k\u2028\":" + nested(32, "\"deep\"") + ",\"n\":1e400}}"),
                poison("NUL in svc_url", p, noteWith(p, "svc_url", "\"/a\\u0000b\""), PATTERN),
                poison("NUL in etag", p, noteWith(p, "etag", "\"e\\u0000\""), PATTERN),
                valid("earliest created", p, with(note(p, "valid 2"), "created", "\"0001-01-01T00:00:00Z\"")),
                poison("NUL in notification_id", p, noteWith(p, "notification_id", "\"id\\u0000\""), PATTERN),
                poison("NUL in a custom_data key", p, noteWith(p, "custom_data", "{\"k\\u0000ey\":1}"), PATTERN),
                poison("NUL in a nested custom_data value", p, noteWith(p, "custom_data",
                        "{\"a\":{\"b\":[\"ok\",\"x\\u0000y\"]}}"), PATTERN),
                valid("latest created", p, with(note(p, "valid 3"), "created", "\"9999-12-31T23:59:59Z\"")),
                poison("NUL in player_uuid", p, note(p + "\u0000", "x"), PATTERN, "uuid_parsing"),
                poison("created in year 300000", p, noteWith(p, "created", "\"+300000-01-01T00:00:00Z\""), DATETIME),
                poison("created in year 0", p, noteWith(p, "created", "\"0000-01-01T00:00:00Z\""), DATETIME),
                poison("created not a date", p, noteWith(p, "created", "\"yesterday\""), DATETIME),
                valid("after timestamps", p, note(p, "valid 4")),
                poison("1 MiB message", p, note(p, "m".repeat(NEARLY_1_MIB)), TOO_LONG),
                poison("1 MiB svc_url", p, noteWith(p, "svc_url", "\"" + "u".repeat(NEARLY_1_MIB) + "\""), TOO_LONG),
                poison("1 MiB notification_id", p, noteWith(p, "notification_id", "\"" + "i".repeat(NEARLY_1_MIB) + "\""),
                        TOO_LONG),
                poison("deeply nested custom_data", p, noteWith(p, "custom_data", "{\"a\":" + nested(DEEP, "1") + "}"),
                        JSON_INVALID),
                valid("after big ones", p, note(p, "valid 5")),
                poison("message of the wrong type", p, "{\"player_uuid\":\"" + p + "\",\"message\":{\"text\":\"x\"}}",
                        JSON_INVALID),
                poison("custom_data of the wrong type", p, noteWith(p, "custom_data", "\"text\""), JSON_INVALID),
                poison("message a number", p, "{\"player_uuid\":\"" + p + "\",\"message\":123}", JSON_INVALID),
                poison("svc_url a boolean", p, noteWith(p, "svc_url", "true"), JSON_INVALID),
                poison("raw NUL byte in the JSON", p, bytes(note(p, "RAW"), "RAW", new byte[] { 0 }), JSON_INVALID),
                poison("not UTF-8", p, bytes(note(p, "LATIN1"), "LATIN1", new byte[] { (byte) 0xC3, 0x28 }),
                        JSON_INVALID),
                poison("not JSON", p, "{not json", JSON_INVALID),
                valid("after malformed ones", p, note(p, "valid 6")),
                beyondSchema(poison("key of another player", UUID.randomUUID().toString(), note(p, "x"), LITERAL)),
                poison("no key", null, note(p, "x"), MISSING),
                poison("key in upper case", p.toUpperCase(Locale.ROOT), note(p, "x"), LITERAL),
                poison("NUL in the key", p + "\u0000", note(p, "x"), LITERAL, PATTERN),
                poison("no value", p, (byte[]) null, MISSING),
                poison("JSON null", p, "null", MISSING),
                valid("last", p, note(p, "valid 7")));
        List<Sent> sent = send(topic, mix);

        String token = gateway.token(E2eStack.playerClient(PLAYER), E2eStack.PLAYER_SECRET);
        SoftAssertions soft = new SoftAssertions();
        List<String> expected = List.of("valid 0", "valid 1 \u2713\uD83C\uDFAE", "valid 2", "valid 3", "valid 4",
                "valid 5", "valid 6", "valid 7");
        Probe.softly(soft, () -> DatabaseOutageTest.assertDelivered(gateway, token, expected, WITHIN_SECONDS));
        Probe.softly(soft, () -> assertDeadLetters(topic, sent));
        Probe.softly(soft, () -> assertTheAsyncApiSchemasAgree(topic, sent));
        soft.assertAll();
    }

    @Test
    void poisonTransactionsAreDeadLetteredOnceAndValidOnesStored() {
        String s = UUID.randomUUID().toString();
        String topic = Topics.SANDBOX_CONFIG_TRANSACTIONS;
        List<String> roles = new ArrayList<>();
        List<String> lists = new ArrayList<>();
        List<Object[]> mix = List.of(
                valid("plain", s, tx(s, roles, "role", "{\"name\":\"r0\"}")),
                poison("NUL in transaction_id", s, set(tx(s, null, "role", "{}"), "transaction_id", "\"t\\u0000\""),
                        PATTERN),
                poison("NUL in account_id", s, set(tx(s, null, "role", "{}"), "account_id", "\"a\\u0000\""), PATTERN),
                valid("earliest issued_at", s, set(tx(s, roles, "role", "{\"name\":\"r1\"}"), "issued_at",
                        "\"0001-01-01T00:00:00Z\"")),
                poison("NUL in version_id", s, set(tx(s, null, "role", "{}"), "version_id", "\"v\\u0000\""), PATTERN),
                poison("NUL in version_name", s, set(tx(s, null, "role", "{}"), "version_name", "\"n\\u0000\""),
                        PATTERN),
                poison("NUL in a version key", s, tx(s, null, "role", "{\"na\\u0000me\":\"x\"}"), PATTERN),
                poison("NUL in a nested version value", s, tx(s, null, "role",
                        "{\"name\":\"r\",\"rules\":[{\"v\":\"a\\u0000\"}]}"), PATTERN),
                valid("latest issued_at, unicode and nesting", s, set(tx(s, roles, "role", "{\"name\":\"R\u00f4le \u2713\","
                        + "\"tree\":" + nested(32, "\"leaf\"") + "}"), "issued_at", "\"9999-12-31T23:59:59Z\"")),
                poison("NUL in operation", s, set(tx(s, null, "role", "{}"), "operation", "\"update\\u0000\""),
                        PATTERN, "enum"),
                poison("NUL in resource_id", s, set(tx(s, null, "role", "{}"), "resource_id",
                        "\"" + UUID.randomUUID() + "\\u0000\""), PATTERN, "uuid_parsing"),
                poison("issued_at in year 300000", s, set(tx(s, null, "role", "{}"), "issued_at",
                        "\"+300000-01-01T00:00:00Z\""), DATETIME),
                poison("issued_at in year 0", s, set(tx(s, null, "role", "{}"), "issued_at",
                        "\"0000-01-01T00:00:00Z\""), DATETIME),
                poison("issued_at not a date", s, set(tx(s, null, "role", "{}"), "issued_at", "\"soon\""), DATETIME),
                valid("profile list", s, tx(s, lists, "match-making-profile-list", "{\"profiles\":[]}")),
                poison("1 MiB version_name", s, set(tx(s, null, "role", "{}"), "version_name",
                        "\"" + "n".repeat(NEARLY_1_MIB) + "\""), TOO_LONG),
                poison("1 MiB account_id", s, set(tx(s, null, "role", "{}"), "account_id",
                        "\"" + "a".repeat(NEARLY_1_MIB) + "\""), TOO_LONG),
                poison("deeply nested version", s, tx(s, null, "role", nested(DEEP, "1")), JSON_INVALID),
                poison("legacy_id of the wrong type", s, set(tx(s, null, "role", "{}"), "legacy_id", "\"abc\""),
                        JSON_INVALID, "int_parsing"),
                poison("legacy_id out of range", s, set(tx(s, null, "role", "{}"), "legacy_id",
                        "99999999999999999999"), JSON_INVALID, "int_parsing", "less_than_equal"),
                poison("version_id of the wrong type", s, set(tx(s, null, "role", "{}"), "version_id", "{\"a\":1}"),
                        JSON_INVALID),
                poison("version_name a boolean", s, set(tx(s, null, "role", "{}"), "version_name", "true"), JSON_INVALID),
                poison("legacy_id a fraction", s, set(tx(s, null, "role", "{}"), "legacy_id", "1.5"), JSON_INVALID,
                        "int_parsing"),
                valid("after malformed ones", s, tx(s, roles, "role", "{\"name\":\"r3\"}")),
                poison("not UTF-8", s, bytes(tx(s, null, "role", "{\"name\":\"LATIN1\"}"), "LATIN1",
                        new byte[] { (byte) 0xE9 }), JSON_INVALID),
                poison("not JSON", s, "[", JSON_INVALID),
                beyondSchema(poison("key of another sandbox", UUID.randomUUID().toString(), tx(s, null, "role", "{}"),
                        LITERAL)),
                poison("no key", null, tx(s, null, "role", "{}"), MISSING),
                poison("key in upper case", s.toUpperCase(Locale.ROOT), tx(s, null, "role", "{}"), LITERAL),
                poison("no value", s, (byte[]) null, MISSING),
                valid("last", s, tx(s, roles, "role", "{\"name\":\"r4\"}")));
        List<Sent> sent = send(topic, mix);

        String console = gateway.token(E2eStack.CONSOLE_CLIENT, E2eStack.CONSOLE_SECRET);
        SoftAssertions soft = new SoftAssertions();
        Probe.softly(soft, () -> await("valid transactions stored").atMost(WITHIN_SECONDS).untilAsserted(() -> {
            assertThat(ids(gateway.history(console, s, "role"))).as("role history").isEqualTo(roles);
            assertThat(ids(gateway.history(console, s, "match-making-profile-list"))).as("profile-list history")
                    .isEqualTo(lists);
        }));
        Probe.softly(soft, () -> assertDeadLetters(topic, sent));
        Probe.softly(soft, () -> assertTheAsyncApiSchemasAgree(topic, sent));
        soft.assertAll();
    }

    /**
     * docs/asyncapi.yaml agrees with the ingest: every record it stored meets the topic's key and value schemas, and
     * every record it refused breaks them — but those whose fault no schema can state (their key names another
     * player or sandbox than their value), which meet them.
     */
    private static void assertTheAsyncApiSchemasAgree(String topic, List<Sent> sent) {
        SoftAssertions soft = new SoftAssertions();
        for (Sent record : sent) {
            List<String> faults = CONTRACT.faults(topic, record.key(), record.value());
            if (record.refusedAs().isEmpty() || !record.schemaCanSay()) {
                soft.assertThat(faults).as("schema faults of '%s', which %s", record.what(),
                        record.refusedAs().isEmpty() ? "the ingest stored" : "no schema can refuse").isEmpty();
            } else {
                soft.assertThat(faults).as("schema faults of '%s', which the ingest refused", record.what()).isNotEmpty();
            }
        }
        soft.assertAll();
    }

    /**
     * Every poison record is in the dead-letter topic exactly once, with its key, value and a reason of the
     * expected types; no valid one is. Failures name the record, never print its (possibly 1 MiB) value.
     */
    private static void assertDeadLetters(String topic, List<Sent> sent) {
        String dlq = Topics.deadLetter(topic);
        Set<String> ours = sent.stream().map(r -> r.source(topic)).collect(Collectors.toSet());
        Set<String> poison = sent.stream().filter(r -> !r.refusedAs().isEmpty()).map(r -> r.source(topic))
                .collect(Collectors.toSet());
        List<TestKafka.Received> letters;
        try {
            letters = await().atMost(WITHIN_SECONDS).pollInterval(Duration.ofSeconds(1))
                    .until(() -> lettersOf(dlq, ours), found -> sources(found).containsAll(poison));
        } catch (ConditionTimeoutException e) {
            letters = lettersOf(dlq, ours); // reported record by record below
        }
        Map<String, List<TestKafka.Received>> bySource = letters.stream()
                .collect(Collectors.groupingBy(l -> l.headers().get(SOURCE_HEADER)));
        SoftAssertions soft = new SoftAssertions();
        for (Sent record : sent) {
            List<TestKafka.Received> mine = bySource.getOrDefault(record.source(topic), List.of());
            if (record.refusedAs().isEmpty()) {
                soft.assertThat(mine.size()).as("dead letters of valid record '%s'", record.what()).isZero();
                continue;
            }
            soft.assertThat(mine.size()).as("dead letters of '%s'", record.what()).isEqualTo(1);
            for (TestKafka.Received letter : mine) {
                String value = record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8);
                soft.assertThat(Objects.equals(letter.key(), record.key()))
                        .as("key of '%s' kept in its dead letter", record.what()).isTrue();
                String truncated = letter.headers().get(TRUNCATED_HEADER);
                if (truncated == null) {
                    soft.assertThat(Objects.equals(letter.value(), value))
                            .as("value of '%s' kept in its dead letter", record.what()).isTrue();
                } else {
                    // a letter that would not fit Kafka's record limit with its reason keeps the start of the value
                    soft.assertThat(truncated).as("original length of '%s'", record.what())
                            .isEqualTo(Integer.toString(record.value().length));
                    soft.assertThat(value != null && !letter.value().isEmpty() && value.startsWith(letter.value()))
                            .as("value of '%s' begins its cut dead letter", record.what()).isTrue();
                }
                soft.assertThat(CONTRACT.headerFaults(dlq, letter.headers()))
                        .as("headers of the dead letter of '%s' against docs/asyncapi.yaml", record.what()).isEmpty();
                String reason = letter.headers().get(Topics.DLQ_REASON_HEADER);
                soft.assertThat(typesOf(reason)).as("types in the reason of '%s' (%s)", record.what(), shortened(reason))
                        .isNotEmpty().isSubsetOf(record.refusedAs());
            }
        }
        soft.assertAll();
    }

    /** The dead letters of our records (found by the source each names). */
    private static List<TestKafka.Received> lettersOf(String dlq, Set<String> ours) {
        return kafka.readAll(dlq, Duration.ofSeconds(30)).stream()
                .filter(l -> ours.contains(l.headers().get(SOURCE_HEADER))).toList();
    }

    private static Set<String> sources(List<TestKafka.Received> letters) {
        return letters.stream().map(l -> l.headers().get(SOURCE_HEADER)).collect(Collectors.toSet());
    }

    private static String shortened(String text) {
        return text == null || text.length() <= 300 ? text : text.substring(0, 300) + "…";
    }

    private static Set<String> typesOf(String reason) {
        if (reason == null) {
            return Set.of();
        }
        Set<String> types = new TreeSet<>();
        for (Matcher m = TYPE.matcher(reason); m.find();) {
            types.add(m.group(1));
        }
        return types;
    }

    /** Sends the records one by one (so their order in each partition is the list's) and notes where each went. */
    private static List<Sent> send(String topic, List<Object[]> mix) {
        List<Sent> sent = new ArrayList<>();
        for (Object[] r : mix) {
            String key = (String) r[1];
            byte[] value = (byte[]) r[2];
            RecordMetadata at = kafka.sendRaw(topic, key == null ? null : key.getBytes(StandardCharsets.UTF_8), value);
            @SuppressWarnings("unchecked")
            Set<String> refusedAs = (Set<String>) r[3];
            sent.add(new Sent((String) r[0], key, value, refusedAs, r.length < 5, at.partition(), at.offset()));
        }
        return sent;
    }

    private static Object[] valid(String what, String key, String value) {
        return new Object[] { what, key, utf8(value), Set.of() };
    }

    private static Object[] poison(String what, String key, String value, String... refusedAs) {
        return poison(what, key, utf8(value), refusedAs);
    }

    private static Object[] poison(String what, String key, byte[] value, String... refusedAs) {
        return new Object[] { what, key, value, Set.of(refusedAs) };
    }

    /** {@code poison}, marked as one whose fault no schema of docs/asyncapi.yaml can state. */
    private static Object[] beyondSchema(Object[] poison) {
        return new Object[] { poison[0], poison[1], poison[2], poison[3], "beyond the schemas" };
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code json} as UTF-8 with {@code marker} replaced by raw bytes. */
    private static byte[] bytes(String json, String marker, byte[] raw) {
        int at = json.indexOf(marker);
        byte[] before = utf8(json.substring(0, at));
        byte[] after = utf8(json.substring(at + marker.length()));
        byte[] all = new byte[before.length + raw.length + after.length];
        System.arraycopy(before, 0, all, 0, before.length);
        System.arraycopy(raw, 0, all, before.length, raw.length);
        System.arraycopy(after, 0, all, before.length + raw.length, after.length);
        return all;
    }

    private static String note(String player, String message) {
        return "{\"player_uuid\":" + Client.JSON.valueToTree(player) + ",\"message\":"
                + Client.JSON.valueToTree(message) + "}";
    }

    /** A valid notification for {@code player} with one more field, given as raw JSON. */
    private static String noteWith(String player, String name, String rawJson) {
        return with(note(player, "x"), name, rawJson);
    }

    /** {@code json} (an object) with one more field, given as raw JSON. */
    private static String with(String json, String name, String rawJson) {
        return json.substring(0, json.length() - 1) + ",\"" + name + "\":" + rawJson + "}";
    }

    /** A transaction of {@code sandbox} (valid unless changed); its id is appended to {@code ids} when given. */
    private static String tx(String sandbox, List<String> ids, String type, String version) {
        String id = UUID.randomUUID().toString();
        if (ids != null) {
            ids.add(id);
        }
        return "{\"transaction_id\":\"" + id + "\",\"sandbox_id\":\"" + sandbox + "\",\"resource_type\":\"" + type
                + "\",\"resource_id\":\"" + UUID.randomUUID() + "\","
                + (type.equals("role") ? "\"legacy_id\":9007199254740993," : "")
                + "\"account_id\":\"e2e-poison\",\"issued_at\":\"2026-01-02T03:04:05Z\",\"operation\":\"create\","
                + "\"version_id\":\"" + UUID.randomUUID() + "\",\"version_name\":\"v\",\"version\":" + version + "}";
    }

    /** {@code json} with one field set to raw JSON (replacing it when present). */
    private static String set(String json, String name, String rawJson) {
        Matcher existing = Pattern.compile("\"" + Pattern.quote(name) + "\":(\"[^\"]*\"|[0-9]+)").matcher(json);
        if (existing.find()) {
            return json.substring(0, existing.start()) + "\"" + name + "\":" + rawJson + json.substring(existing.end());
        }
        return with(json, name, rawJson);
    }

    private static String nested(int depth, String leaf) {
        return "[".repeat(depth) + leaf + "]".repeat(depth);
    }

    private static List<String> ids(List<com.fasterxml.jackson.databind.JsonNode> transactions) {
        return transactions.stream().map(t -> t.path("transaction_id").asText()).toList();
    }
}
