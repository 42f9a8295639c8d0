package io.outpost.notification.rest;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Answer of the publish endpoint: the id of each published notification, in the order sent. */
public record PublishResponse(@JsonProperty("notification_ids") List<String> notificationIds) {
}
