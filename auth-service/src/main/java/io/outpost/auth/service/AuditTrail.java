package io.outpost.auth.service;

import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.auth.config.AuthConfig;
import io.outpost.auth.store.OutboxRecord;
import io.outpost.support.security.revocation.Revocation;

/**
 * The audit trail of every admin action and revocation, and the revocation records themselves: each event is an
 * {@link OutboxRecord} persisted with the change (published to the audit topic by the relay) and, once the change
 * is committed, one JSON log line (logger {@code outpost.audit}). Secrets never appear in either.
 */
@Singleton
public class AuditTrail {

    private static final Logger AUDIT = Logger.getLogger("outpost.audit");

    /** One audited action: who did what to which client, and the details that matter. */
    public record Event(String actor, String action, String clientId, Instant at, Map<String, Object> details) {
    }

    private final ObjectMapper json;
    private final Clock clock;
    private final AuthConfig.Events topics;

    public AuditTrail(ObjectMapper json, Clock clock, AuthConfig config) {
        this.json = json;
        this.clock = clock;
        this.topics = config.events();
    }

    /** An event now; {@code details} are name, value pairs. */
    public Event event(String actor, String action, String clientId, Object... details) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i + 1 < details.length; i += 2) {
            map.put((String) details[i], details[i + 1]);
        }
        return new Event(actor, action, clientId, clock.instant(), map);
    }

    /** The outbox record of an event (same key as the client, so a client's events stay in order). */
    public OutboxRecord record(Event event) {
        return new OutboxRecord(topics.auditTopic(), event.clientId(), text(event), clock.instant());
    }

    /** The outbox record of a revocation. */
    public OutboxRecord record(Revocation revocation) {
        try {
            return new OutboxRecord(topics.revocationTopic(), revocation.key(), json.writeValueAsString(revocation),
                    clock.instant());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Logs events whose change is committed. */
    public void logged(List<Event> events) {
        events.forEach(event -> AUDIT.info(text(event)));
    }

    private String text(Event event) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("at", event.at().toString());
        line.put("actor", event.actor());
        line.put("action", event.action());
        line.put("client_id", event.clientId());
        line.putAll(event.details());
        try {
            return json.writeValueAsString(line);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
