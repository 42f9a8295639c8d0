package io.outpost.history;

import static io.outpost.history.HistoryFixture.PROFILE_LIST;
import static io.outpost.history.HistoryFixture.ROLE;
import static io.outpost.history.HistoryFixture.awaitTotal;
import static io.outpost.history.HistoryFixture.event;
import static io.outpost.history.HistoryFixture.page;
import static io.outpost.history.HistoryFixture.publish;
import static io.outpost.history.HistoryFixture.role;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;

/** Role history filters, alone and combined, in both orders, over events that went through the topic. */
@QuarkusTest
class RoleHistoryFilterTest {

    private static final UUID SANDBOX = UUID.randomUUID();
    private static final UUID OTHER_SANDBOX = UUID.randomUUID();
    private static final UUID ADMIN = UUID.randomUUID();
    private static final UUID MODERATOR = UUID.randomUUID();
    private static final UUID GAME_ADMIN = UUID.randomUUID();
    /** Transaction ids of SANDBOX's roles, in publish order. */
    private static final List<String> ROLES = new ArrayList<>();
    private static final Map<String, String> ALL = Map.of();

    @BeforeEach
    void publishOnce() {
        synchronized (ROLES) {
            if (!ROLES.isEmpty()) {
                return;
            }
            UUID list = UUID.randomUUID();
            List<ObjectNode> events = List.of(
                    legacy(role(SANDBOX, ADMIN, "Admin Tools"), 1), legacy(role(SANDBOX, MODERATOR, "Moderator"), 2),
                    role(SANDBOX, GAME_ADMIN, "Game ADMIN"), legacy(role(SANDBOX, ADMIN, "Admin Tools"), 1),
                    event(SANDBOX, PROFILE_LIST, list, "admin list"), legacy(role(SANDBOX, MODERATOR, "Moderator"), 2),
                    role(SANDBOX, GAME_ADMIN, "Game ADMIN"), legacy(role(SANDBOX, ADMIN, "Admin 50%_off"), 1),
                    event(SANDBOX, PROFILE_LIST, list, "admin list"),
                    legacy(role(OTHER_SANDBOX, ADMIN, "Admin Tools"), 1), legacy(role(OTHER_SANDBOX, MODERATOR, "Moderator"), 2));
            publish(events);
            awaitTotal(SANDBOX, ROLE, 7);
            awaitTotal(SANDBOX, PROFILE_LIST, 2);
            awaitTotal(OTHER_SANDBOX, ROLE, 2);
            events.stream().filter(e -> e.get("sandbox_id").asText().equals(SANDBOX.toString())
                    && e.get("resource_type").asText().equals(ROLE)).forEach(e -> ROLES.add(e.get("transaction_id").asText()));
        }
    }

    private static ObjectNode legacy(ObjectNode event, long legacyId) {
        return event.put("legacy_id", legacyId);
    }

    /** SANDBOX's role transactions at the given publish positions (0-based), newest first. */
    private static List<String> newestFirst(int... positions) {
        List<String> ids = new ArrayList<>();
        for (int i = positions.length - 1; i >= 0; i--) {
            ids.add(ROLES.get(positions[i]));
        }
        return ids;
    }

    private static void assertListing(Map<String, String> query, List<String> expected) {
        JsonPath page = page(SANDBOX, ROLE, query);
        assertThat(page.getList("transactions.transaction_id", String.class)).containsExactlyElementsOf(expected);
        assertThat(page.getLong("page_meta.total")).isEqualTo(expected.size());
        assertThat(page.getInt("page_meta.page_size")).isEqualTo(50);
        assertThat(page.getString("page_meta.cursor")).isNull();
    }

    @Test
    void listsOnlyRolesOfTheSandboxNewestFirstByDefault() {
        assertListing(ALL, newestFirst(0, 1, 2, 3, 4, 5, 6));
    }

    @Test
    void sortOrderAscListsOldestFirst() {
        assertListing(Map.of("sort_order", "asc"), List.of(ROLES.get(0), ROLES.get(1), ROLES.get(2), ROLES.get(3),
                ROLES.get(4), ROLES.get(5), ROLES.get(6)));
        assertListing(Map.of("sort_order", "desc"), newestFirst(0, 1, 2, 3, 4, 5, 6));
    }

    @Test
    void roleIdsFilterAcceptsRepeatedAndCommaSeparatedValues() {
        assertListing(Map.of("role_ids", ADMIN.toString()), newestFirst(0, 3, 6));
        assertListing(Map.of("role_ids", ADMIN + "," + GAME_ADMIN), newestFirst(0, 2, 3, 5, 6));
        JsonPath repeated = HistoryFixture.viewer().queryParam("role_ids", MODERATOR.toString(), GAME_ADMIN.toString())
                .when().get(HistoryFixture.path(SANDBOX, ROLE)).then().statusCode(200).extract().jsonPath();
        assertThat(repeated.getList("transactions.transaction_id", String.class)).containsExactlyElementsOf(newestFirst(1, 2, 4, 5));
    }

    @Test
    void legacyRoleIdsFilterMatchesLegacyIds() {
        assertListing(Map.of("legacy_role_ids", "2"), newestFirst(1, 4));
        assertListing(Map.of("legacy_role_ids", "1,2"), newestFirst(0, 1, 3, 4, 6));
        assertListing(Map.of("legacy_role_ids", "99"), List.of());
    }

    @Test
    void nameFilterIsACaseInsensitiveSubstringOfTheRolesOwnName() {
        assertListing(Map.of("name", "admin"), newestFirst(0, 2, 3, 5, 6));
        assertListing(Map.of("name", "GAME a"), newestFirst(2, 5));
        assertListing(Map.of("name", "m"), newestFirst(0, 1, 2, 3, 4, 5, 6));
        // LIKE wildcards in the filter are literal characters
        assertListing(Map.of("name", "50%_"), newestFirst(6));
        assertListing(Map.of("name", "%"), newestFirst(6));
        assertListing(Map.of("name", "_"), newestFirst(6));
        // the profile list called "admin list" is not a role
        assertListing(Map.of("name", "list"), List.of());
    }

    @Test
    void filtersCombineWithAnd() {
        assertListing(Map.of("role_ids", ADMIN + "," + MODERATOR, "name", "tools"), newestFirst(0, 3));
        assertListing(Map.of("role_ids", ADMIN.toString(), "legacy_role_ids", "1", "name", "ADMIN", "sort_order", "asc"),
                List.of(ROLES.get(0), ROLES.get(3), ROLES.get(6)));
        assertListing(Map.of("role_ids", MODERATOR.toString(), "legacy_role_ids", "1"), List.of());
        assertListing(Map.of("legacy_role_ids", "1,2", "name", "mod", "sort_order", "asc"), List.of(ROLES.get(1), ROLES.get(4)));
    }

    @Test
    void otherSandboxesNeverLeak() {
        JsonPath other = page(OTHER_SANDBOX, ROLE, Map.of("role_ids", ADMIN.toString()));
        assertThat(other.getList("transactions.transaction_id", String.class)).hasSize(1).doesNotContainAnyElementsOf(ROLES);
        assertThat(other.getLong("page_meta.total")).isEqualTo(1);
        JsonPath empty = page(UUID.randomUUID(), ROLE, ALL);
        assertThat(empty.getList("transactions")).isEmpty();
        assertThat(empty.getLong("page_meta.total")).isZero();
    }

    @Test
    void emptyResultIsAnEmptyPageWithoutCursor() {
        HistoryFixture.viewer().queryParam("role_ids", UUID.randomUUID().toString())
                .when().get(HistoryFixture.path(SANDBOX, ROLE))
                .then().statusCode(200).contentType("application/json")
                .body(org.hamcrest.Matchers.equalTo("{\"transactions\":[],\"page_meta\":{\"page_size\":50,\"total\":0}}"));
    }
}
