package io.outpost.notification.messaging;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.messaging.KafkaReachability;
import io.outpost.model.Topics;
import io.outpost.model.event.NotificationEvent;
import io.outpost.notification.config.NotificationConfig;
import io.outpost.support.kafka.KafkaClientSettings;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;

/**
 * Writes notifications to {@code player-notifications} (key: the player), acknowledged by all in-sync replicas,
 * so the HTTP publish endpoint and every other producer share the one ingest path.
 */
@ApplicationScoped
public class NotificationPublisher {

    private final KafkaProducer<String, String> producer;
    private final ObjectMapper mapper;
    private final Duration timeout;
    private final Duration retryWindow;
    private final KafkaReachability kafka;

    public NotificationPublisher(@ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers,
            ObjectMapper mapper, NotificationConfig config, KafkaReachability kafka) {
        this.mapper = mapper;
        this.kafka = kafka;
        this.timeout = config.publishTimeout();
        this.retryWindow = config.publishRetryWindow();
        int millis = (int) Math.max(1000, timeout.toMillis());
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "notification-publish");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        // give up within the answer's timeout: what happens next is publish()'s to decide, not the producer's
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, millis);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, millis);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, millis + 1);
        props.putAll(KafkaClientSettings.configured());
        this.producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /**
     * The largest record value published, in bytes of JSON: below Kafka's default limit of 1 MiB per record
     * (key and headers included), so a notification the endpoint accepts is one Kafka accepts, and its dead
     * letter fits too should the ingest refuse it.
     */
    public static final int MAX_VALUE_BYTES = 1_000_000;

    /** The record value of {@code event}: its JSON. */
    public String value(NotificationEvent event) {
        try {
            return mapper.writeValueAsString(event);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("a notification read from JSON cannot be written back", e);
        }
    }

    /**
     * Sends every event (each with its player set; {@code values} their {@link #value}s) and completes once all
     * are acknowledged; fails at once while the cluster is known to be unreachable.
     *
     * <p>When Kafka does not acknowledge them in time, whether they were written is not known: a partition leader lost
     * after a follower copied them keeps them without acknowledging. So they are sent again — each
     * {@code notification_id} stored once — as long as the cluster still answers (a partition is only waiting for
     * its new leader) and {@code publish-retry-window} has not passed; the publish fails only when the cluster does
     * not answer or the window is over (before, a 503 answered in such a moment could be followed by the
     * notification's delivery: {@code BrokerLeaderLossTest}).
     */
    public Uni<Void> publish(List<NotificationEvent> events, List<String> values) {
        if (!kafka.reachable()) {
            // answered at once rather than after publish-timeout: the cluster did not answer the last check
            return Uni.createFrom().failure(new PublishFailedException(
                    "Kafka is unreachable; retry shortly (a notification sent with its own notification_id is stored once)",
                    null));
        }
        long deadline = System.nanoTime() + retryWindow.toNanos();
        return attempt(events, values, deadline).onFailure().transform(failure -> new PublishFailedException(
                "Kafka did not acknowledge every notification in time; retry (a notification sent with its own notification_id is stored once)",
                failure));
    }

    /** One sending of every event; on failure, sent again while the cluster answers, until {@code deadline}. */
    private Uni<Void> attempt(List<NotificationEvent> events, List<String> values, long deadline) {
        return send(events, values).onFailure().recoverWithUni(failure -> System.nanoTime() - deadline >= 0
                ? Uni.createFrom().failure(failure)
                : Uni.createFrom().completionStage(kafka::askNow).chain(answers -> answers
                        ? attempt(events, values, deadline)
                        : Uni.createFrom().failure(failure)));
    }

    private Uni<Void> send(List<NotificationEvent> events, List<String> values) {
        Uni<Void> sent = Uni.createFrom().emitter(emitter -> {
            AtomicInteger pending = new AtomicInteger(events.size());
            for (int i = 0; i < events.size(); i++) {
                // send() may block while metadata is fetched: this runs on a worker thread
                producer.send(new ProducerRecord<>(Topics.PLAYER_NOTIFICATIONS, events.get(i).playerUuid(), values.get(i)),
                        (metadata, failure) -> {
                            if (failure != null) {
                                emitter.fail(failure);
                            } else if (pending.decrementAndGet() == 0) {
                                emitter.complete(null);
                            }
                        });
            }
        });
        return sent.runSubscriptionOn(Infrastructure.getDefaultWorkerPool()).ifNoItem().after(timeout.plusSeconds(1)).fail();
    }

    @PreDestroy
    void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
