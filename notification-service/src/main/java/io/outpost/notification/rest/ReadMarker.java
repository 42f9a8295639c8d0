package io.outpost.notification.rest;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;

import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;
import io.outpost.model.event.NotificationEvent;

/** Body of {@code PUT …/notification/read-marker}: the notification up to which the player has read. */
public record ReadMarker(@JsonProperty("notification_id") String notificationId) {

    /** The faults of a body that read: {@code notification_id} required, 1..128 characters the store can keep. */
    static List<ErrorDetail> validate(ReadMarker marker) {
        List<ErrorDetail> faults = new ArrayList<>();
        List<Object> at = ErrorDetail.loc("body", "notification_id");
        if (marker == null) {
            faults.add(ErrorDetail.missing(at));
        } else if (Constraints.required(faults, at, marker.notificationId())) {
            Constraints.text(faults, at, marker.notificationId(), 1, NotificationEvent.MAX_NOTIFICATION_ID);
        }
        return faults;
    }
}
