package io.outpost.notification.rest;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Answer of a create: the vendor's {@code notification_id}, the last one created, and every id in the order sent
 * ({@code notification_ids}).
 */
public record PublishResponse(@JsonProperty("notification_id") String notificationId,
        @JsonProperty("notification_ids") List<String> notificationIds) {

    static PublishResponse of(List<String> ids) {
        return new PublishResponse(ids.get(ids.size() - 1), ids);
    }
}
