package io.outpost.load.history;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.UUID;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

import io.outpost.model.Topics;

/** A backlog of valid transactions on the topic (1,000 sandboxes), and the rate at which the service stores it. */
final class IngestRun {

    /**
     * Seconds from the first stored row to the {@code warm}-th ({@code cold}: the service starts, compiles and fills
     * its pools meanwhile) and from there to the last ({@code seconds}: the rate of a service that has been running).
     */
    record Rate(double cold, double seconds) {
    }

    private IngestRun() {
    }

    /** Produces {@code count} events and returns the seconds it took (acks=all). */
    static double produce(String bootstrap, int count) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        UUID[] sandboxes = new UUID[1000];
        for (int i = 0; i < sandboxes.length; i++) {
            sandboxes[i] = UUID.randomUUID();
        }
        long t0 = System.nanoTime();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            Instant issued = Instant.parse("2026-02-01T00:00:00Z");
            for (int i = 0; i < count; i++) {
                String sandbox = sandboxes[i % sandboxes.length].toString();
                String value = "{\"transaction_id\":\"ingest-" + i + "-" + UUID.randomUUID() + "\",\"sandbox_id\":\"" + sandbox
                        + "\",\"resource_type\":\"role\",\"resource_id\":\"" + UUID.randomUUID() + "\",\"legacy_id\":" + i
                        + ",\"account_id\":\"account-" + (i % 50) + "\",\"issued_at\":\"" + issued.plusSeconds(i)
                        + "\",\"operation\":\"update\",\"version_id\":\"v-" + i + "\",\"version_name\":\"Version " + i
                        + "\",\"version\":{\"name\":\"Role " + (i % 5000) + "\",\"permissions\":[\"sandbox:config:view\"],\"priority\":"
                        + (i % 100) + "}}";
                producer.send(new ProducerRecord<>(Topics.SANDBOX_CONFIG_TRANSACTIONS, sandbox, value));
            }
            producer.flush();
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /**
     * Polls (bounded) until {@code warm + count} rows are stored; see {@link Rate}. Starts before the service does:
     * until its migrations ran the table is missing, which counts as nothing stored.
     */
    static Rate await(Connection db, int warm, int count, Duration bound) throws Exception {
        long deadline = System.nanoTime() + bound.toNanos();
        long first = 0;
        long warmed = 0;
        try (Statement s = db.createStatement()) {
            while (System.nanoTime() < deadline) {
                long stored = 0;
                try (ResultSet r = s.executeQuery("SELECT coalesce(sum(total), 0) FROM history.listing_total")) {
                    r.next();
                    stored = r.getLong(1);
                } catch (java.sql.SQLException notMigratedYet) {
                    // the schema arrives with the service
                }
                long now = System.nanoTime();
                if (stored > 0 && first == 0) {
                    first = now;
                }
                if (stored > 0 && stored >= warm && warmed == 0) {
                    warmed = now;
                }
                if (stored >= warm + count) {
                    return new Rate((warmed - first) / 1e9, (now - warmed) / 1e9);
                }
                Thread.sleep(20);
            }
        }
        throw new IllegalStateException("ingest did not finish within " + bound);
    }
}
