package io.outpost.messaging;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.messaging.Refusals.Refusal;
import io.outpost.model.error.ErrorDetail;
import io.outpost.support.json.JsonBinding;

/**
 * Reads a record's value as {@code E} (JSON) and validates it with its key: either a {@link Consumed} event or
 * the {@link Refusal} its dead letter carries (every fault, in DESIGN §5's words; the first one's type is the
 * metric's reason).
 */
final class RecordParser<E> {

    /** Exactly one of the two is set. */
    record Parsed<E>(Consumed<E> consumed, Refusal refusal) {
    }

    private static final List<Object> VALUE = ErrorDetail.loc("value");

    private final Class<E> type;
    private final ObjectMapper mapper;
    private final EventValidator<E> validator;

    RecordParser(Class<E> type, ObjectMapper mapper, EventValidator<E> validator) {
        this.type = type;
        this.mapper = mapper;
        this.validator = validator;
    }

    Parsed<E> parse(ConsumerRecord<byte[], byte[]> record) {
        String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        List<ErrorDetail> faults = new ArrayList<>();
        E event = read(record, faults);
        if (event != null) {
            faults = JsonBinding.withChecks(faults, validator.validate(key, event));
        }
        if (faults.isEmpty()) {
            return new Parsed<>(new Consumed<>(key, event, record.topic(), record.partition(), record.offset(),
                    record.timestamp()), null);
        }
        String reason = faults.stream().map(ErrorDetail::describe).collect(Collectors.joining("; "));
        return new Parsed<>(null, new Refusal(reason, faults.get(0).type()));
    }

    /** The event, or null when the value has none (absent, empty or {@code null}: missing); its faults added to faults. */
    private E read(ConsumerRecord<byte[], byte[]> record, List<ErrorDetail> faults) {
        JsonBinding.Read<E> read = JsonBinding.read(mapper, record.value(), type, VALUE);
        faults.addAll(read.faults());
        if (read.value() == null && read.faults().isEmpty()) {
            faults.add(ErrorDetail.missing(VALUE));
        }
        return read.value();
    }
}
