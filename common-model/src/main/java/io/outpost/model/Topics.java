package io.outpost.model;

/** Kafka topics (DESIGN §4, §6). Each has a dead-letter twin named {@code <topic>.dlq}. */
public final class Topics {

    /** Key: player uuid; value: {@link io.outpost.model.event.NotificationEvent}. */
    public static final String PLAYER_NOTIFICATIONS = "player-notifications";
    /** Key: sandbox id; value: {@link io.outpost.model.event.ConfigTransactionEvent}. */
    public static final String SANDBOX_CONFIG_TRANSACTIONS = "sandbox-config-transactions";
    /**
     * auth-service's revocations, read by every verifier (compacted; key {@code token:<jti>} or
     * {@code client:<client_id>}; docs/auth.md, "Revocation").
     */
    public static final String AUTH_TOKEN_REVOCATIONS = "auth-token-revocations";
    /** auth-service's audit events (key: the client id acted on). */
    public static final String AUTH_AUDIT = "auth-audit";
    public static final String DLQ_SUFFIX = ".dlq";
    /** Header of a dead-lettered record holding why it was refused. */
    public static final String DLQ_REASON_HEADER = "outpost-dlq-reason";

    public static String deadLetter(String topic) {
        return topic + DLQ_SUFFIX;
    }

    private Topics() {
    }
}
