package io.outpost.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PermissionsTest {

    @Test
    void longPollAcceptsExactlyTheFourPermissionsOfSpec() {
        assertThat(Permissions.LONG_POLL).containsExactlyInAnyOrder(
                "notification:player:*",
                "notification:player:read",
                "notification:player:self:*",
                "notification:player:self:read");
    }

    @Test
    void sandboxHistoryAcceptsConfigViewOrEdit() {
        assertThat(Permissions.SANDBOX_HISTORY)
                .containsExactlyInAnyOrder("sandbox:config:view", "sandbox:config:edit");
    }

    @Test
    void writePermissionsAreNotEnoughToLongPoll() {
        assertThat(Permissions.LONG_POLL).doesNotContain(
                Permissions.NOTIFICATION_PLAYER_WRITE, Permissions.NOTIFICATION_PLAYER_SELF_WRITE);
    }
}
