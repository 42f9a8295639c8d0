package io.outpost.support.security.revocation;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.model.error.ErrorDetail;
import io.outpost.support.json.JsonBinding;

/**
 * What one record of the revocation topic says, read as strictly as every Kafka value of the services: applied to
 * the {@link RevocationList} whole, or not at all and logged with its position and why. The {@link RevocationFeed}
 * hands each record here.
 */
final class RevocationRecords {

    private static final Logger LOG = Logger.getLogger(RevocationFeed.class);

    /** Where a record's faults are located, as in the ingests' dead-letter reasons ({@code value.jti: …}). */
    private static final List<Object> VALUE = ErrorDetail.loc("value");
    /** The faults of one record named in its log line (a document may hold up to {@link JsonBinding#MAX_FAULTS}). */
    private static final int LOGGED_FAULTS = 5;
    private static final String NOT_A_REVOCATION =
            "value: not a revocation (type token with a jti, or client with a client_id and issued_before; expires_at)";
    /**
     * Compaction keeps the last record of each key, and a tombstone forgets by key: a record under another key than
     * its value's would be dropped or outlived by records about something else, so that replicas started at other
     * times would disagree about it.
     */
    private static final String NOT_ITS_KEY = "key: not the value's own (token:<jti>, or client:<client_id>)";

    private final RevocationList list;
    private final ObjectMapper json;

    RevocationRecords(RevocationList list, ObjectMapper json) {
        this.list = list;
        this.json = json;
    }

    /**
     * Applies one record, or logs it with its position and why it is not one auth-service writes, and goes on to the
     * next: a record is applied whole or not at all. The value is read by {@link JsonBinding}, as every Kafka value
     * of the services is: bytes that are not UTF-8 JSON text (malformed UTF-8, a 0x00 byte), a key given twice, a key
     * holding U+0000, a value of the wrong JSON type, a document past the parser's limits are each refused by name;
     * then the record must hold what its type needs ({@link Revocation#wellFormed}), under its own key, read as
     * strictly as a tombstone's: a key that is not UTF-8 forgets nothing, and matches no value.
     */
    void apply(ConsumerRecord<byte[], byte[]> record) {
        if (record.key() == null) {
            return;
        }
        String why;
        try {
            why = applied(record);
        } catch (RuntimeException e) { // nothing foreseen throws: still, one record never stops the feed
            why = e.toString();
        }
        if (why != null) {
            LOG.warnf("revocation feed: ignored an unreadable record at %s-%d@%d: %s", record.topic(),
                    record.partition(), record.offset(), why);
        }
    }

    /** Null when the record was applied; else why it was not. */
    private String applied(ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            String key = strictUtf8(record.key());
            if (key == null) {
                return "key: not UTF-8";
            }
            list.forget(key);
            return null;
        }
        JsonBinding.Read<Revocation> read = JsonBinding.read(json, record.value(), Revocation.class, VALUE);
        List<ErrorDetail> faults = read.faults();
        if (!faults.isEmpty()) {
            return faults.stream().limit(LOGGED_FAULTS).map(ErrorDetail::describe).collect(Collectors.joining("; "))
                    + (faults.size() > LOGGED_FAULTS ? "; and " + (faults.size() - LOGGED_FAULTS) + " more" : "");
        }
        if (read.value() == null || !read.value().wellFormed()) {
            return NOT_A_REVOCATION;
        }
        if (!read.value().key().equals(strictUtf8(record.key()))) {
            return NOT_ITS_KEY;
        }
        list.apply(read.value());
        return null;
    }

    /** {@code bytes} as UTF-8; null when they are not well-formed UTF-8 (a new decoder reports, never replaces). */
    private static String strictUtf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
