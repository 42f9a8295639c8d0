package io.outpost.model.event;

import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;

/**
 * Reads a producer's timestamp as the contract spells it: an ISO-8601 string with {@code Z} or an offset.
 * Jackson's own reader also takes numbers as epoch seconds, reads {@code 1e400} as 1970 and a blank string as
 * absent; here anything but a parsable string fails as a wrong {@link Instant}, which the services answer as
 * {@code datetime_parsing}. The range (years 0001..9999) is checked by the event's validation.
 *
 * <p>Digits below the microsecond are dropped here, as soon as the value is read: PostgreSQL keeps microseconds
 * and would round the rest ({@code …59.9999999Z} would become the next year), and an answer given from memory
 * before the row is read back must say the same instant as the row ({@code created} of a notification served
 * to a held poll, then again from the store). A leap second ({@code 23:59:60}) reads as {@code 23:59:59}, as
 * {@link DateTimeFormatter#ISO_INSTANT} reads it.
 */
public final class IsoInstantDeserializer extends StdScalarDeserializer<Instant> {

    public IsoInstantDeserializer() {
        super(Instant.class);
    }

    @Override
    public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        if (!p.hasToken(JsonToken.VALUE_STRING)) {
            return (Instant) ctxt.handleUnexpectedToken(Instant.class, p);
        }
        String text = p.getText();
        try {
            return DateTimeFormatter.ISO_INSTANT.parse(text, Instant::from).truncatedTo(ChronoUnit.MICROS);
        } catch (DateTimeException e) {
            return (Instant) ctxt.handleWeirdStringValue(Instant.class, text, "not an ISO-8601 date-time");
        }
    }
}
