package io.outpost.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TopicsTest {

    @Test
    void namesDeadLetterTopicWithDlqSuffix() {
        assertThat(Topics.deadLetter("player-notifications")).isEqualTo("player-notifications.dlq");
    }

    @Test
    void deadLetterTwinsOfBothEventTopicsMatchDesign() {
        assertThat(Topics.deadLetter(Topics.PLAYER_NOTIFICATIONS)).isEqualTo("player-notifications.dlq");
        assertThat(Topics.deadLetter(Topics.SANDBOX_CONFIG_TRANSACTIONS))
                .isEqualTo("sandbox-config-transactions.dlq");
    }
}
