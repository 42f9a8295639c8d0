package io.outpost.notification.rest;

import java.util.List;

import io.outpost.model.event.NotificationEvent;

/** Body of the publish endpoint: 1..100 notifications for the player of the path. */
public record PublishRequest(List<NotificationEvent> notifications) {
}
