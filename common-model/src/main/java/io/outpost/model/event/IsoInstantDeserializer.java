package io.outpost.model.event;

import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;

/**
 * Reads a producer's timestamp as the contract spells it: an ISO-8601 string with {@code Z} or an offset.
 * Jackson's own reader also takes numbers as epoch seconds, reads {@code 1e400} as 1970 and a blank string as
 * absent; here anything but a parsable string fails as a wrong {@link Instant}, which the services answer as
 * {@code datetime_parsing}. The range (years 0001..9999) is checked by the event's validation.
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
            return DateTimeFormatter.ISO_INSTANT.parse(text, Instant::from);
        } catch (DateTimeException e) {
            return (Instant) ctxt.handleWeirdStringValue(Instant.class, text, "not an ISO-8601 date-time");
        }
    }
}
