package io.outpost.notification.rest;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;

import io.outpost.model.event.NotificationEvent;

/**
 * Body of {@code POST /notification/v1/notifications}: one notification for up to 1,000 players, idempotent as a
 * whole on {@code request_id}.
 */
public record FanOutRequest(@JsonProperty("request_id") String requestId,
        @JsonProperty("player_uuids") List<String> playerUuids, NotificationEvent notification) {
}
