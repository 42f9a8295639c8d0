package io.outpost.support.json;

import jakarta.inject.Singleton;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.jackson.ObjectMapperCustomizer;

/**
 * Keeps producers' numbers exactly as sent: {@code custom_data} and {@code version} are passed through, and
 * reading decimals as doubles would turn {@code 1.10} into {@code 1.1} and {@code 1e400} into "Infinity".
 */
@Singleton
public class ExactNumbersCustomizer implements ObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    }
}
