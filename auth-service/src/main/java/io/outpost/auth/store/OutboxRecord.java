package io.outpost.auth.store;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A Kafka record written in the transaction of the change it reports (table {@code auth.outbox}), so that a
 * revocation or an audit event is never lost between PostgreSQL and Kafka; the relay publishes and deletes it.
 */
@Entity
@Table(name = "outbox", schema = "auth")
public class OutboxRecord {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(name = "topic", nullable = false)
    private String topic;

    @Column(name = "record_key", nullable = false)
    private String key;

    @Column(name = "record_value", nullable = false)
    private String value;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    protected OutboxRecord() {
    }

    public OutboxRecord(String topic, String key, String value, Instant now) {
        this.topic = topic;
        this.key = key;
        this.value = value;
        this.createdAt = now;
    }

    public String topic() {
        return topic;
    }

    public String key() {
        return key;
    }

    public String value() {
        return value;
    }
}
