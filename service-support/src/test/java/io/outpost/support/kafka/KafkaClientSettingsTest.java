package io.outpost.support.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;

/** The TLS/SASL settings of deploy/'s Kafka listener reach every client; nothing else does, and none by default. */
class KafkaClientSettingsTest {

    @Test
    void passesOnTheSecuritySettingsUnderTheirKafkaNames() {
        var config = new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(Map.of(
                "kafka.security.protocol", "SASL_SSL", "kafka.sasl.mechanism", "SCRAM-SHA-512",
                "kafka.sasl.jaas.config", "scram-config", "kafka.ssl.truststore.type", "PEM",
                "kafka.ssl.truststore.location", "/etc/outpost/kafka-ca/ca.crt",
                "kafka.bootstrap.servers", "elsewhere:9093", "kafka.group.id", "not-this"), "test", 100)).build();
        assertThat(KafkaClientSettings.configured(config)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config", "scram-config",
                "ssl.truststore.type", "PEM", "ssl.truststore.location", "/etc/outpost/kafka-ca/ca.crt"));
    }

    @Test
    void setsNothingWhenNothingIsConfigured() {
        assertThat(KafkaClientSettings.configured(new SmallRyeConfigBuilder().build())).isEmpty();
    }
}
