package io.outpost.support.json;

import jakarta.inject.Singleton;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;

import io.quarkus.jackson.ObjectMapperCustomizer;

/**
 * Reads a producer's scalars as the JSON types they are, as the contract's fields are typed: Jackson's defaults
 * would store {@code "message": 123}, {@code 1e999999} or {@code true} as the text {@code "123"}, …, read
 * {@code "legacy_id": 1.5} as 1 and {@code "legacy_id": ""} as absent. Here each of them fails as a value of the
 * wrong type, which {@link JsonFaults} answers as {@code json_invalid} at the field (a 422 over HTTP, a dead letter
 * from Kafka). A number written as a JSON string ({@code "legacy_id": "7"}) is still read, as pydantic's lax mode
 * reads it; objects and arrays were never coerced.
 *
 * <p>A document is also read whole: Jackson's default stops after the first value, so {@code {…}{…}} (two events
 * a buggy producer concatenated into one record) or {@code {…} {}} stored the first and dropped the rest without
 * a word. Anything after the value but whitespace fails the read ({@code json_invalid}, "JSON decode error").
 *
 * <p>An object naming one key twice is refused too ({@code json_invalid}, "JSON decode error, a key is given twice
 * in one object"), anywhere in the document: Jackson keeps the last, another reader the first (RFC 8259 §4 leaves
 * it open), so which value a producer meant cannot be known — and one that a proxy or a validator before us read
 * differently could be smuggled past it.
 */
@Singleton
public class StrictScalarsCustomizer implements ObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Integer)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail);
    }
}
