package io.gpupool.api;

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

import java.util.Map;
import java.util.stream.Stream;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Asking the inventory with a filter it cannot read is a 400 problem that names the filter, never
 * an answer that silently ignores it; a device heartbeat it cannot take changes nothing.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InventoryQueryProblemsApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    io.gpupool.profile.ProfileService profiles;
    Api api;

    @BeforeAll
    void loadFleet() throws InterruptedException {
        api = new Api(client);
        SmallFleet.load(api);
        // the fleet's profiles are derived in the background: a device read before and after a refused
        // heartbeat must not differ by a derivation that finished in between (seen once on PostgreSQL)
        assertThat(profiles.awaitIdle(60, java.util.concurrent.TimeUnit.SECONDS))
                .as("profiles derived").isTrue();
    }

    static Stream<Arguments> badQueries() {
        return Stream.of(
                arguments("devices", "size=0", "size must be between 1 and 1000, was 0"),
                arguments("devices", "size=1001", "size must be between 1 and 1000, was 1001"),
                arguments("devices", "size=all", "size"),
                arguments("devices", "page=-1", "page must be >= 0, was -1"),
                arguments("devices", "health=SICK", "health"),
                arguments("devices", "tier=GOLD", "tier"),
                arguments("devices", "catalog=maybe", "catalog filter must be 'known' or 'unknown', was 'maybe'"),
                arguments("devices", "poolMismatch=perhaps", "poolMismatch"),
                arguments("devices", "label==nvlink", "label filter must be 'key' or 'key=value', was '=nvlink'"),
                arguments("nodes", "size=0", "size must be between 1 and 1000, was 0"),
                arguments("nodes", "page=-3", "page must be >= 0, was -3"),
                arguments("nodes", "tier=GOLD", "tier"),
                arguments("nodes", "label==x", "label filter must be 'key' or 'key=value'"),
                arguments("leases", "state=FINISHED", "state"),
                arguments("decisions", "action=SMILE", "action"),
                arguments("decisions", "after=-1", "after: the id of a decision log entry (>= 0), was -1"),
                arguments("decisions", "since=last%20week", "since: an ISO-8601 instant such as"),
                arguments("decisions", "until=2026-13-01T00:00:00Z", "until: an ISO-8601 instant such as"),
                arguments("decisions", "rule=" + "r".repeat(257), "rule: at most 256 characters, got 257"));
    }

    @ParameterizedTest(name = "GET /{0}?{1} is refused naming the filter")
    @MethodSource("badQueries")
    void aFilterTheInventoryCannotReadIsRefusedNamingIt(String list, String query, String says) {
        Reply reply = api.get("/api/v1/" + list + "?" + query, ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.detail()).contains(says);
    }

    @Test
    void theMismatchFilterTakesTrueOrFalseInAnyCase() {
        int mismatched = api.get("/api/v1/devices?poolMismatch=TRUE", ADMIN).body().get("total").asInt();
        int matched = api.get("/api/v1/devices?poolMismatch=false", ADMIN).body().get("total").asInt();

        assertThat(mismatched + matched).isEqualTo(20);
        assertThat(api.get("/api/v1/devices?poolMismatch=True", ADMIN).body().get("total").asInt()).isEqualTo(mismatched);
    }

    @Test
    void aPageBeyondTheLastIsEmptyButStillCountsEveryMatch() {
        Reply reply = api.get("/api/v1/devices?page=2147483647&size=1000", ADMIN);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().get("items")).isEmpty();
        assertThat(reply.body().get("total").asInt()).isEqualTo(20);
    }

    @Test
    void aPlaceFilterThatMatchesNothingIsAnEmptyPageNotAnError() {
        Reply reply = api.get("/api/v1/devices?site=atlantis", ADMIN);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().get("total").asInt()).isZero();
    }

    static Stream<Arguments> badDeviceHeartbeats() {
        return Stream.of(
                arguments("an unknown health", "{\"health\":\"SICK\"}", "SICK"),
                arguments("a time that is not a time", "{\"at\":\"noon\"}", "noon"),
                arguments("a time from the future", "{\"at\":\"2100-01-01T00:00:00Z\"}", "is in the future"),
                arguments("a time before the year 2000", "{\"at\":\"1999-12-31T23:59:59Z\"}", "1999-12-31T23:59:59Z"),
                arguments("a time at the edge of the calendar", "{\"at\":\"-999999999-01-01T00:00:00Z\"}", "-999999999-01-01T00:00:00Z"),
                arguments("an unknown field", "{\"healthy\":true}", "healthy"),
                arguments("a list for a body", "[]", "heartbeat"));
    }

    @ParameterizedTest(name = "a device heartbeat with {0} is refused and the device keeps its state")
    @MethodSource("badDeviceHeartbeats")
    void aDeviceHeartbeatItCannotTakeIsRefusedAndTheDeviceKeepsItsState(String what, String body, String says) {
        String before = api.get("/api/v1/devices/l40s-a-gpu3", ADMIN).body().toString();

        Reply reply = api.send(HttpRequest.POST("/api/v1/devices/l40s-a-gpu3/heartbeat", body)
                .contentType(MediaType.APPLICATION_JSON_TYPE), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.detail()).contains(says);
        assertThat(api.get("/api/v1/devices/l40s-a-gpu3", ADMIN).body().toString()).isEqualTo(before);
    }

    @ParameterizedTest(name = "a cluster import with dryRun={0} is refused and imports nothing")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"yes", "1", "perhaps", "on"})
    void aClusterImportWhoseDryRunFlagIsNeitherTrueNorFalseIsRefusedAndImportsNothing(String flag) {
        String slurm = slurmDump();

        Reply reply = api.postText("/api/v1/clusters/hpc-" + flag + "/import?format=slurm&dryRun=" + flag, slurm, "text/plain", ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.detail()).contains("dryRun: true or false, was '" + flag + "'");
        assertThat(api.get("/api/v1/clusters", ADMIN).body().findValuesAsText("id")).doesNotContain("hpc-" + flag);
        assertThat(api.get("/api/v1/devices?cluster=hpc-" + flag, ADMIN).body().get("total").asInt()).isZero();
    }

    @Test
    void aClusterImportWithDryRunTrueInCapitalsOnlyReports() {
        Reply reply = api.postText("/api/v1/clusters/hpc-dry/import?format=slurm&dryRun=TRUE", slurmDump(), "text/plain", ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(200);
        assertThat(api.get("/api/v1/clusters", ADMIN).body().findValuesAsText("id")).doesNotContain("hpc-dry");
    }

    private static String slurmDump() {
        try (var in = InventoryQueryProblemsApiTest.class.getResourceAsStream("/inventory-samples/slurm/written-from-docs__scontrol-show-node.txt")) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void onlyAnAdminRecordsADeviceHeartbeat() {
        String viewer = api.post("/api/v1/tokens", Map.of("name", "inventory-viewer", "role", "viewer"), ADMIN).body().get("secret").asText();
        String tenant = SmallFleet.tenantToken(api, "vision");

        for (String token : new String[] {viewer, tenant}) {
            Reply reply = api.post("/api/v1/devices/l40s-a-gpu2/heartbeat", Map.of("health", "FAILED"), token);
            assertThat(reply.status()).isEqualTo(403);
            assertThat(reply.detail()).contains("may not call this endpoint");
        }
        assertThat(api.get("/api/v1/devices/l40s-a-gpu2", ADMIN).body().get("health").asText()).isEqualTo("HEALTHY");
    }
}
