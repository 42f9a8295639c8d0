package io.outpost.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.core5.http.HttpStatus;
import org.apache.hc.core5.http.ParseException;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.core.type.TypeReference;
import com.nimbusds.jwt.SignedJWT;

import io.outpost.e2e.client.auth.api.OauthApi;
import io.outpost.e2e.client.auth.model.TokenBody;
import io.outpost.e2e.client.auth.model.TokenRequest;
import io.outpost.e2e.client.auth.model.TokenResponse;
import io.outpost.e2e.client.history.api.HistoryApi;
import io.outpost.e2e.client.history.model.HistoryPage;
import io.outpost.e2e.client.history.model.HistoryTransaction;
import io.outpost.e2e.client.notification.ApiException;
import io.outpost.e2e.client.notification.api.NotificationsApi;
import io.outpost.e2e.client.notification.model.CreateNotifications;
import io.outpost.e2e.client.notification.model.Created;
import io.outpost.e2e.client.notification.model.InboxEntry;
import io.outpost.e2e.client.notification.model.InboxPage;
import io.outpost.e2e.client.notification.model.NewNotification;
import io.outpost.e2e.client.notification.model.Notification;
import io.outpost.e2e.client.notification.model.NotificationPage;
import io.outpost.e2e.client.notification.model.ReadMarker;
import io.outpost.model.Topics;
import io.outpost.testsupport.TestKafka;

/**
 * Issue 40: a client team generates a Java client from the three services' OpenAPI documents (e2e-tests' build,
 * openapi-generator-maven-plugin) and drives a game's whole flow through the gateway with that client alone — a
 * token by HTTP Basic, create, the long poll along its cursor, the inbox page by page, one notification by id, a 304
 * for an unchanged page, the read marker, delete, and both history listings page by page — and finally revokes the
 * token, whose revocation and audit records meet docs/asyncapi.yaml. Only the history's records come from elsewhere:
 * producers write them to Kafka.
 */
class GeneratedClientEndToEndTest {

    private static final String ME = "me";
    private static final int CREATED = 3;

    @Test
    @SuppressWarnings("deprecation") // ApiClient.getResponseHeaders: the 200's ETag (the library has no WithHttpInfo)
    void aGeneratedClientDrivesTheWholeFlowThroughTheGateway() throws Exception {
        String gateway = E2eStack.get().gatewayUrl();

        var authClient = new io.outpost.e2e.client.auth.ApiClient().setBasePath(gateway);
        authClient.setUsername(E2eStack.GENERATED_CLIENT);
        authClient.setPassword(E2eStack.GENERATED_SECRET);
        OauthApi oauth = new OauthApi(authClient);
        TokenResponse token = oauth.issueToken(new TokenRequest().grantType(TokenRequest.GrantTypeEnum.CLIENT_CREDENTIALS), null);
        assertThat(token.getTokenType()).isEqualTo(TokenResponse.TokenTypeEnum.BEARER);
        assertThat(token.getExpiresIn()).isPositive();

        var notificationClient = new NotModifiedAnswersNull().setBasePath(gateway).setBearerToken(token.getAccessToken());
        NotificationsApi notifications = new NotificationsApi(notificationClient);
        String player = E2eStack.GENERATED_PLAYER.toString();

        // create, on the player's own path by "me"
        CreateNotifications body = new CreateNotifications();
        for (int i = 0; i < CREATED; i++) {
            body.addNotificationsItem(new NewNotification().message("generated " + i).svcUrl("/items/" + i));
        }
        Created created = notifications.createNotifications(ME, body);
        List<String> ids = created.getNotificationIds();
        assertThat(ids).hasSize(CREATED).doesNotHaveDuplicates();
        assertThat(created.getNotificationId()).isEqualTo(ids.get(CREATED - 1));

        // the long poll along its cursor, by the player's uuid: every notification once, oldest first
        List<String> polled = new ArrayList<>();
        String cursor = null;
        for (int polls = 0; polled.size() < CREATED && polls < 10; polls++) {
            NotificationPage page = notifications.pollNotifications(player, 2, 10, "earliest", cursor);
            page.getNotifications().forEach(n -> polled.add(n.getNotificationId()));
            assertThat(page.getNotifications()).hasSizeLessThanOrEqualTo(2);
            cursor = page.getCursor();
        }
        assertThat(polled).isEqualTo(ids);
        NotificationPage nothingNew = notifications.pollOwnNotifications(10, 0, null, cursor);
        assertThat(nothingNew.getNotifications()).isEmpty();
        assertThat(nothingNew.getCursor()).isEqualTo(cursor);

        // the inbox, newest first, page by page along its cursor
        InboxPage first = notifications.listNotifications(ME, 2, null, null, null);
        String etag = notificationClient.getResponseHeaders().get("ETag").get(0);
        assertThat(first.getNotifications()).extracting(InboxEntry::getNotificationId).containsExactly(ids.get(2), ids.get(1));
        assertThat(first.getNotifications()).extracting(InboxEntry::getRead).containsOnly(false);
        InboxPage second = notifications.listNotifications(ME, 2, first.getCursor(), null, null);
        assertThat(second.getNotifications()).extracting(InboxEntry::getNotificationId).containsExactly(ids.get(0));
        assertThat(notifications.listNotifications(ME, 2, second.getCursor(), null, null).getNotifications()).isEmpty();

        // 304 for the unchanged page
        assertThat(notifications.listNotifications(ME, 2, null, null, etag)).isNull();
        assertThat(notificationClient.getStatusCode()).isEqualTo(304);
        assertThat(notificationClient.getResponseHeaders().get("ETag")).containsExactly(etag);

        // one by id
        Notification one = notifications.getNotification(player, ids.get(1));
        assertThat(one.getMessage()).isEqualTo("generated 1");
        assertThat(one.getSvcUrl()).isEqualTo("/items/1");
        assertThat(one.getCreated()).isNotNull();

        // the read marker: the page changes, and says which are read
        notifications.markNotificationsRead(ME, new ReadMarker().notificationId(ids.get(1)));
        InboxPage marked = notifications.listNotifications(ME, 2, null, null, etag);
        assertThat(marked.getNotifications()).extracting(InboxEntry::getRead).containsExactly(false, true);

        // delete: gone by id (404 resource_not_found) and from the inbox
        notifications.deleteNotification(ME, ids.get(1));
        ApiException gone = catchThrowableOfType(ApiException.class, () -> notifications.getNotification(ME, ids.get(1)));
        assertThat(gone.getCode()).isEqualTo(404);
        assertThat(notificationClient.getObjectMapper().readValue(gone.getResponseBody(),
                io.outpost.e2e.client.notification.model.Error.class).getErrorCode()).isEqualTo("resource_not_found");
        assertThat(notifications.listNotifications(ME, 10, null, null, null).getNotifications())
                .extracting(InboxEntry::getNotificationId).containsExactly(ids.get(2), ids.get(0));

        historyPageByPage(gateway, token.getAccessToken());

        // revoked: every service refuses the token (DESIGN §3's 403 body, as the document describes it)
        oauth.revokeToken(new TokenBody().token(token.getAccessToken()), null);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            ApiException refused = catchThrowableOfType(ApiException.class,
                    () -> notifications.pollOwnNotifications(1, 0, null, null));
            assertThat(refused.getCode()).isEqualTo(403);
            assertThat(refused.getResponseHeaders()).containsKey("WWW-Authenticate");
            var failure = notificationClient.getObjectMapper().readValue(refused.getResponseBody(),
                    io.outpost.e2e.client.notification.model.AuthFailure.class);
            assertThat(failure.getAuthSuccess()).isFalse();
            assertThat(failure.getErrorCode()).isEqualTo("auth_token_unknown");
        });
        assertAuthRecordsMeetTheAsyncApiDocument(SignedJWT.parse(token.getAccessToken()).getJWTClaimsSet().getJWTID());
    }

    /** The revocation and its audit event, as auth-service wrote them, meet docs/asyncapi.yaml's schemas. */
    private static void assertAuthRecordsMeetTheAsyncApiDocument(String jti) {
        AsyncApiDocument document = AsyncApiDocument.load();
        try (TestKafka kafka = new TestKafka()) {
            List<TestKafka.Received> revocations = kafka.read(Topics.AUTH_TOKEN_REVOCATIONS, "token:" + jti, 1,
                    Duration.ofSeconds(30));
            assertThat(revocations).hasSize(1);
            assertThat(document.faults(Topics.AUTH_TOKEN_REVOCATIONS, revocations.get(0).key(),
                    AsyncApiDocument.utf8(revocations.get(0).value()))).isEmpty();
            List<TestKafka.Received> audit = kafka.read(Topics.AUTH_AUDIT, E2eStack.GENERATED_CLIENT, 1,
                    Duration.ofSeconds(30));
            assertThat(audit).hasSize(1);
            assertThat(audit.get(0).value()).contains("\"token.revoked\"", jti);
            assertThat(document.faults(Topics.AUTH_AUDIT, audit.get(0).key(), AsyncApiDocument.utf8(audit.get(0).value())))
                    .isEmpty();
        }
    }

    /** Both listings of a sandbox whose transactions a producer wrote, two per page, along page_meta.cursor. */
    private static void historyPageByPage(String gateway, String token) throws Exception {
        UUID sandbox = UUID.randomUUID();
        List<String> roles = new ArrayList<>();
        List<String> lists = new ArrayList<>();
        try (TestKafka kafka = new TestKafka()) {
            for (int i = 0; i < 3; i++) {
                roles.add(transaction(kafka, sandbox, "role", "{\"name\":\"Role " + i + "\"}"));
                lists.add(transaction(kafka, sandbox, "match-making-profile-list", "{\"profiles\":[" + i + "]}"));
            }
        }
        HistoryApi history = new HistoryApi(new io.outpost.e2e.client.history.ApiClient().setBasePath(gateway)
                .setBearerToken(token));
        await().atMost(Duration.ofSeconds(30)).until(() -> history.listRoleHistory(sandbox, null, null, null, null, null, 1)
                .getPageMeta().getTotal() == 3 && history.listProfileListHistory(sandbox, null, null, 1)
                .getPageMeta().getTotal() == 3);

        List<String> rolePages = new ArrayList<>();
        String cursor = "0";
        for (int pages = 0; cursor != null && pages < 5; pages++) {
            HistoryPage page = history.listRoleHistory(sandbox, null, null, null, "asc", cursor, 2);
            page.getTransactions().stream().map(HistoryTransaction::getTransactionId).forEach(rolePages::add);
            assertThat(page.getPageMeta().getPageSize()).isEqualTo(2);
            cursor = page.getPageMeta().getCursor();
        }
        assertThat(rolePages).isEqualTo(roles);

        List<String> listPages = new ArrayList<>();
        cursor = null; // the default: the first page
        for (int pages = 0; pages == 0 || cursor != null && pages < 5; pages++) {
            HistoryPage page = history.listProfileListHistory(sandbox, null, cursor, 2);
            page.getTransactions().stream().map(HistoryTransaction::getTransactionId).forEach(listPages::add);
            cursor = page.getPageMeta().getCursor();
        }
        assertThat(listPages).isEqualTo(List.of(lists.get(2), lists.get(1), lists.get(0)));
    }

    /**
     * The generated client, answering a 304 as what it is: no body (null), its status and headers kept as for any
     * answer. As generated (apache-httpclient), every status outside 2xx is read as an error with a body, and a
     * bodiless one fails inside the HTTP library.
     */
    private static final class NotModifiedAnswersNull extends io.outpost.e2e.client.notification.ApiClient {
        @Override
        protected <T> T processResponse(CloseableHttpResponse response, TypeReference<T> returnType)
                throws io.outpost.e2e.client.notification.ApiException, IOException, ParseException {
            if (response.getCode() != HttpStatus.SC_NOT_MODIFIED) {
                return super.processResponse(response, returnType);
            }
            lastStatusCode.set(response.getCode());
            lastResponseHeaders.set(transformResponseHeaders(response.getHeaders()));
            return null;
        }
    }

    private static String transaction(TestKafka kafka, UUID sandbox, String type, String version) {
        String id = "generated-" + UUID.randomUUID();
        kafka.send(Topics.SANDBOX_CONFIG_TRANSACTIONS, sandbox.toString(), "{\"transaction_id\":\"" + id
                + "\",\"sandbox_id\":\"" + sandbox + "\",\"resource_type\":\"" + type + "\",\"resource_id\":\""
                + UUID.randomUUID() + "\",\"account_id\":\"e2e-generated\",\"issued_at\":\"2026-01-02T03:04:05Z\","
                + "\"operation\":\"update\",\"version_id\":\"v-" + id + "\",\"version\":" + version + "}");
        return id;
    }
}
