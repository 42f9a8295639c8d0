package io.outpost.support.kafka;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * What every Kafka client of a service needs besides the bootstrap servers: TLS and SASL settings, read from
 * {@code kafka.*} configuration ({@code KAFKA_SECURITY_PROTOCOL}, {@code KAFKA_SASL_JAAS_CONFIG}, …). None is set
 * locally; the prod overlay (deploy/) sets them for Strimzi's TLS + SCRAM-SHA-512 listener.
 */
public final class KafkaClientSettings {

    static final List<String> KEYS = List.of("security.protocol", "sasl.mechanism", "sasl.jaas.config",
            "ssl.truststore.type", "ssl.truststore.location", "ssl.endpoint.identification.algorithm");

    private KafkaClientSettings() {
    }

    /** The settings configured, under their Kafka client names. */
    public static Map<String, Object> configured() {
        return configured(ConfigProvider.getConfig());
    }

    static Map<String, Object> configured(Config config) {
        Map<String, Object> settings = new HashMap<>();
        for (String key : KEYS) {
            config.getOptionalValue("kafka." + key, String.class).ifPresent(value -> settings.put(key, value));
        }
        return settings;
    }
}
