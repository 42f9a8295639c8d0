package io.outpost.support.json;

import jakarta.inject.Singleton;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;

import io.quarkus.jackson.ObjectMapperCustomizer;

/**
 * Keeps producers' numbers exactly as sent, in maps and in {@code JsonNode}s alike: {@code custom_data} and
 * {@code version} are passed through, and reading decimals as doubles would turn {@code 1.10} into {@code 1.1} and {@code 1e400} into "Infinity".
 */
@Singleton
public class ExactNumbersCustomizer implements ObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        // JsonNode values (a history snapshot) too: keep 1.10 as 1.10
        mapper.configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);
    }
}
