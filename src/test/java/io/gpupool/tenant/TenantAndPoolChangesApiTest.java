package io.gpupool.tenant;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Changing tenants and pools after they hold work: a team moved to another organisation leaves
 * the old organisation's reach and enters the new one's at once (its lease with it); renaming keeps
 * what a tenant or pool holds; a change that names another id, an unknown parent or comes from a
 * token that may not make it is refused and changes nothing.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TenantAndPoolChangesApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    Api api;
    String acme;
    String otherOrg;
    String vision;
    String lease;

    @BeforeAll
    void visionHoldsALease() {
        api = new Api(client);
        SmallFleet.load(api);
        acme = SmallFleet.tenantToken(api, "acme");
        otherOrg = SmallFleet.tenantToken(api, "other-org");
        vision = SmallFleet.tenantToken(api, "vision");
        Reply placed = api.post("/api/v1/requests", request("vision", "dev", 1, "pool", "dev"), vision);
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        lease = placed.body().at("/lease/id").asText();
    }

    private static Map<String, Object> tenant(String id, String parent, String name) {
        Map<String, Object> body = new HashMap<>();
        body.put("id", id);
        body.put("parent", parent);
        body.put("name", name);
        return body;
    }

    private JsonNode tenantRecord(String id) {
        return api.get("/api/v1/tenants/" + id, ADMIN).body();
    }

    @Test
    void aTeamMovedToAnotherOrganisationLeavesTheOldOnesReachAndEntersTheNewOnesWithItsLease() {
        assertThat(api.get("/api/v1/leases/" + lease, acme).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/leases/" + lease, otherOrg).status()).isEqualTo(403);
        try {
            Reply moved = api.put("/api/v1/tenants/vision", tenant("vision", "other-org", "Vision"), ADMIN);
            assertThat(moved.status()).as(moved.body().toString()).isEqualTo(200);

            assertThat(api.get("/api/v1/leases/" + lease, acme).status()).as("the old organisation").isEqualTo(403);
            assertThat(api.get("/api/v1/leases", acme).body().findValuesAsText("id")).doesNotContain(lease);
            assertThat(api.get("/api/v1/leases/" + lease, otherOrg).status()).as("the new organisation").isEqualTo(200);
            assertThat(api.get("/api/v1/tenants", otherOrg).body().findValuesAsText("id")).contains("vision");
            assertThat(api.get("/api/v1/leases/" + lease, vision).status()).as("the team itself").isEqualTo(200);
        } finally {
            assertThat(api.put("/api/v1/tenants/vision", tenant("vision", "acme", "Vision"), ADMIN).status()).isEqualTo(200);
        }
        assertThat(api.get("/api/v1/leases/" + lease, acme).status()).isEqualTo(200);
    }

    @Test
    void renamingATenantKeepsItsQuotasLeasesAndTokens() {
        int quotas = api.get("/api/v1/quotas?tenant=vision", ADMIN).body().size();
        try {
            Reply renamed = api.put("/api/v1/tenants/vision", tenant("vision", "acme", "Computer Vision"), ADMIN);
            assertThat(renamed.status()).as(renamed.body().toString()).isEqualTo(200);

            assertThat(tenantRecord("vision").get("name").asText()).isEqualTo("Computer Vision");
            assertThat(api.get("/api/v1/quotas?tenant=vision", ADMIN).body()).hasSize(quotas);
            assertThat(api.get("/api/v1/leases/" + lease, vision).body().get("state").asText()).isEqualTo("ACTIVE");
        } finally {
            api.put("/api/v1/tenants/vision", tenant("vision", "acme", "Vision"), ADMIN);
        }
    }

    static Stream<Arguments> refusedTenantChanges() {
        return Stream.of(
                Arguments.of("an unknown parent", tenant("vision", "nobody", "Vision"), 400, "tenants[0].parent: unknown tenant 'nobody'"),
                Arguments.of("itself as its parent", tenant("vision", "vision", "Vision"), 400, "cycle"),
                Arguments.of("another id in the body", tenant("speech", "acme", "Vision"), 400,
                        "The body's id 'speech' differs from the path's 'vision'"),
                Arguments.of("a name longer than its column", tenant("vision", "acme", "n".repeat(257)), 400,
                        "name: at most 256 characters"));
    }

    @ParameterizedTest(name = "a tenant change with {0} is refused and the tenant stays as it was")
    @MethodSource("refusedTenantChanges")
    void aRefusedTenantChangeLeavesTheTenantAsItWas(String what, Map<String, Object> body, int status, String says) {
        JsonNode before = tenantRecord("vision");

        Reply reply = api.put("/api/v1/tenants/vision", body, ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(status);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.detail().toLowerCase()).contains(says.toLowerCase());
        assertThat(tenantRecord("vision")).isEqualTo(before);
        assertThat(tenantRecord("speech").get("name").asText()).isNotEqualTo("Vision");
    }

    @Test
    void anOrganisationCannotBeMovedUnderItsOwnTeam() {
        JsonNode before = tenantRecord("acme");

        Reply reply = api.put("/api/v1/tenants/acme", tenant("acme", "vision", "Acme"), ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(tenantRecord("acme")).isEqualTo(before);
        assertThat(api.get("/api/v1/leases/" + lease, acme).status()).isEqualTo(200);
    }

    static Stream<Arguments> writesNotTheirs() {
        return Stream.of(
                Arguments.of("create a tenant", "POST", "/api/v1/tenants", Map.of("id", "intruder", "name", "X")),
                Arguments.of("rename a tenant", "PUT", "/api/v1/tenants/vision", Map.of("id", "vision", "parent", "acme", "name", "Mine")),
                Arguments.of("create a pool", "POST", "/api/v1/pools", Map.of("id", "intruder", "tier", "ELASTIC")),
                Arguments.of("change a pool", "PUT", "/api/v1/pools/dev", Map.of("id", "dev", "tier", "ELASTIC")));
    }

    @ParameterizedTest(name = "a tenant's or viewer's token may not {0}")
    @MethodSource("writesNotTheirs")
    void onlyAnAdminChangesTenantsAndPools(String what, String method, String path, Map<String, Object> body) {
        String viewer = api.post("/api/v1/tokens", Map.of("name", "viewer-" + System.nanoTime(), "role", "viewer"), ADMIN)
                .body().get("secret").asText();
        String tenantsBefore = api.get("/api/v1/tenants", ADMIN).body().toString();
        String poolsBefore = api.get("/api/v1/pools", ADMIN).body().toString();

        for (String token : List.of(vision, acme, viewer)) {
            Reply reply = api.send(HttpRequest.create(io.micronaut.http.HttpMethod.valueOf(method), path).body(body)
                    .contentType(MediaType.APPLICATION_JSON_TYPE), token);
            assertThat(reply.status()).as(what).isEqualTo(403);
            assertThat(reply.detail()).contains("may not call this endpoint");
        }
        assertThat(api.get("/api/v1/tenants", ADMIN).body().toString()).isEqualTo(tenantsBefore);
        assertThat(api.get("/api/v1/pools", ADMIN).body().toString()).isEqualTo(poolsBefore);
    }

    @Test
    void renamingAPoolKeepsItsDevicesAndTheLeasesOnThem() {
        JsonNode pool = api.get("/api/v1/pools/dev", ADMIN).body();
        int devices = api.get("/api/v1/devices?pool=dev", ADMIN).body().get("total").asInt();
        Map<String, Object> renamed = new HashMap<>(Map.of("id", "dev", "name", "Shared development", "tier", pool.get("tier").asText(),
                "placementStrategy", pool.get("placementStrategy").asText(), "sharingAllowed", pool.get("sharingAllowed").asBoolean()));
        try {
            Reply reply = api.put("/api/v1/pools/dev", renamed, ADMIN);

            assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
            assertThat(api.get("/api/v1/pools/dev", ADMIN).body().get("name").asText()).isEqualTo("Shared development");
            assertThat(api.get("/api/v1/devices?pool=dev", ADMIN).body().get("total").asInt()).isEqualTo(devices);
            assertThat(api.get("/api/v1/leases/" + lease, ADMIN).body().get("state").asText()).isEqualTo("ACTIVE");
        } finally {
            renamed.put("name", pool.get("name").asText());
            api.put("/api/v1/pools/dev", renamed, ADMIN);
        }
    }

    @Test
    void aPoolChangeWithoutATierOrForAnUnknownPoolIsRefusedAndChangesNothing() {
        String before = api.get("/api/v1/pools", ADMIN).body().toString();

        Reply noTier = api.put("/api/v1/pools/dev", Map.of("id", "dev", "name", "No tier"), ADMIN);
        Reply unknown = api.put("/api/v1/pools/moon", Map.of("id", "moon", "tier", "ELASTIC"), ADMIN);

        assertThat(noTier.status()).as(noTier.body().toString()).isEqualTo(400);
        assertThat(noTier.detail()).contains("tier");
        assertThat(unknown.status()).as(unknown.body().toString()).isEqualTo(404);
        assertThat(unknown.detail()).contains("Unknown pool 'moon'");
        assertThat(api.get("/api/v1/pools", ADMIN).body().toString()).isEqualTo(before);
    }
}
