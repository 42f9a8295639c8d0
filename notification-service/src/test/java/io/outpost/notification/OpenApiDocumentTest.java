package io.outpost.notification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.outpost.model.Limits;
import io.outpost.model.event.NotificationEvent;
import io.outpost.notification.rest.LongPollRoute;
import io.outpost.notification.service.FanOutService;
import io.outpost.testsupport.contract.OpenApiContract;
import io.outpost.testsupport.contract.OpenApiDocument;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
class OpenApiDocumentTest extends OpenApiContract {

    private static final String PLAYER = "/notification/v1/player/{player_uuid}";
    private static final String POLL = "GET " + PLAYER + "/stream/notification/lp";
    private static final String OWN_POLL = "GET " + LongPollRoute.PATH;
    private static final String PAGE = "GET " + PLAYER + "/notification";

    @Test
    void everyLimitAndDefaultOfTheLongPollAndThePageIsDescribed() {
        OpenApiDocument document = publicDocument();
        for (String poll : List.of(POLL, OWN_POLL)) {
            assertBounds(document, poll, "max_page_size", Limits.POLL_PAGE_SIZE_MIN, Limits.POLL_PAGE_SIZE_MAX,
                    Limits.POLL_PAGE_SIZE_DEFAULT);
            assertBounds(document, poll, "deadline", Limits.DEADLINE_MIN, Limits.DEADLINE_MAX, Limits.DEADLINE_DEFAULT);
            JsonNode strategy = document.parameter(poll, "offset_reset_strategy").path("schema");
            assertEquals("[\"latest\",\"earliest\"]", strategy.path("enum").toString());
            assertEquals("latest", strategy.path("default").asText());
            assertTrue(document.parameter(poll, "exclude_before").has("schema"), poll + " exclude_before");
            assertEquals("[\"latest\",\"earliest\"]", document.resolve(document.resolve(document.operation(poll)
                    .path("responses").path("200")).path("headers").path("x-svc-cursor-reset")).path("schema")
                    .path("enum").toString());
        }
        assertBounds(document, PAGE, "page_size", Limits.INBOX_PAGE_SIZE_MIN, Limits.INBOX_PAGE_SIZE_MAX,
                Limits.INBOX_PAGE_SIZE_DEFAULT);
        assertEquals("header", document.parameter(PAGE, "If-None-Match").path("in").asText());
        assertTrue(document.operation(PAGE).path("responses").has("304"));
    }

    @Test
    void theNotificationSchemasCarrySpecTwoTwosBounds() {
        JsonNode schemas = publicDocument().root().path("components").path("schemas");
        for (String schema : List.of("Notification", "NewNotification")) {
            JsonNode fields = schemas.path(schema).path("properties");
            assertEquals(NotificationEvent.MAX_MESSAGE, fields.path("message").path("maxLength").asInt());
            assertEquals(NotificationEvent.MAX_SVC_URL, fields.path("svc_url").path("maxLength").asInt());
            assertEquals(1, fields.path("svc_url").path("minLength").asInt());
            // any object, not the Java type that carries its text
            assertEquals("object", fields.path("custom_data").path("type").asText());
            assertTrue(fields.path("custom_data").path("properties").isMissingNode());
            assertEquals("date-time", fields.path("expires_at").path("format").asText());
        }
        assertEquals(NotificationEvent.MAX_NOTIFICATION_ID,
                schemas.path("NewNotification").path("properties").path("notification_id").path("maxLength").asInt());
        assertEquals(NotificationEvent.MAX_ETAG,
                schemas.path("NewNotification").path("properties").path("etag").path("maxLength").asInt());
        JsonNode batch = schemas.path("CreateNotifications").path("properties").path("notifications");
        assertEquals(List.of(Limits.PUBLISH_BATCH_MIN, Limits.PUBLISH_BATCH_MAX),
                List.of(batch.path("minItems").asInt(), batch.path("maxItems").asInt()));
        assertEquals(FanOutService.MAX_PLAYERS, schemas.path("FanOut").path("properties").path("player_uuids").path("maxItems").asInt());
    }

    private static void assertBounds(OpenApiDocument document, String operation, String name, int min, int max,
            int defaultValue) {
        JsonNode schema = document.parameter(operation, name).path("schema");
        assertEquals(List.of(min, max, defaultValue), List.of(schema.path("minimum").asInt(),
                schema.path("maximum").asInt(), schema.path("default").asInt()), operation + " " + name);
    }
}
