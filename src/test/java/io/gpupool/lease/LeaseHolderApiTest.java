package io.gpupool.lease;

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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * What a lease's holder sends — renewals and heartbeats with usage — through the REST API: a bad
 * value is a 400 problem naming it and changes nothing (no new expiry, no heartbeat time, no usage
 * sample, no decision); an ended lease answers 409; an unknown one 404.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaseHolderApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    DataSource dataSource;
    Api api;
    String vision;
    String lease;
    String device;

    @BeforeAll
    void loadFleet() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
    }

    @BeforeEach
    void placeALease() {
        Reply placed = api.post("/api/v1/requests", request("vision", "training", 2, "ttlSeconds", 3600), vision);
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        lease = placed.body().at("/lease/id").asText();
        device = placed.body().at("/lease/shares/0/deviceId").asText();
    }

    @AfterEach
    void releaseIt() {
        api.post("/api/v1/leases/" + lease + "/release", Map.of(), ADMIN);
    }

    private JsonNode leaseNow() {
        return api.get("/api/v1/leases/" + lease, ADMIN).body();
    }

    private int decisionsOnTheLease() {
        return api.get("/api/v1/decisions?lease=" + lease, ADMIN).body().size();
    }

    private long usageSamplesOfTheLease() {
        try (Connection c = io.micronaut.data.connection.jdbc.advice.DelegatingDataSource.unwrapDataSource(dataSource).getConnection();
             var count = c.prepareStatement("SELECT COUNT(*) FROM usage_sample WHERE lease_id = ?")) {
            count.setString(1, lease);
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private Reply postRaw(String path, String json) {
        return api.send(HttpRequest.POST(path, json).contentType(MediaType.APPLICATION_JSON_TYPE), vision);
    }

    private static void assertProblem(Reply reply, int status, String says) {
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(status);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.detail()).contains(says);
    }

    @Test
    void aRenewalMovesTheExpiryToTheNewTtlFromNowAndIsLogged() {
        int before = decisionsOnTheLease();

        Reply renewed = api.post("/api/v1/leases/" + lease + "/renew", Map.of("ttlSeconds", 7200), vision);

        assertThat(renewed.status()).as(renewed.body().toString()).isEqualTo(200);
        Instant expires = Instant.parse(renewed.body().get("expiresAt").asText());
        assertThat(Duration.between(Instant.now(), expires).toSeconds()).isCloseTo(7200, within(120L));
        assertThat(leaseNow().get("expiresAt").asText()).isEqualTo(renewed.body().get("expiresAt").asText());
        assertThat(decisionsOnTheLease()).isEqualTo(before + 1);
        assertThat(api.get("/api/v1/decisions?lease=" + lease + "&action=RENEW", ADMIN).body().get(0).get("reasonCode").asText())
                .isEqualTo("RENEWED");
    }

    static Stream<Arguments> badRenewals() {
        return Stream.of(
                arguments("no ttl at all", "{}", "Body required: {ttlSeconds}"),
                arguments("a ttl of zero", "{\"ttlSeconds\":0}", "ttlSeconds: must be between 1 and 7776000, was 0"),
                arguments("a negative ttl", "{\"ttlSeconds\":-60}", "ttlSeconds: must be between 1 and 7776000, was -60"),
                arguments("a ttl beyond 90 days", "{\"ttlSeconds\":7776001}", "ttlSeconds: must be between 1 and 7776000, was 7776001"),
                arguments("a ttl in words", "{\"ttlSeconds\":\"an hour\"}", "ttlSeconds"),
                arguments("a ttl beyond a long", "{\"ttlSeconds\":99999999999999999999}", "out of range"),
                arguments("a body that is not JSON", "ttl=60", "Invalid JSON"),
                arguments("an unknown field", "{\"ttlSeconds\":60,\"forever\":true}", "forever"));
    }

    @ParameterizedTest(name = "a renewal with {0} is refused and the expiry stays")
    @MethodSource("badRenewals")
    void aBadRenewalIsRefusedWith400AndTheExpiryStays(String what, String body, String says) {
        String expiresBefore = leaseNow().get("expiresAt").asText();
        int decisionsBefore = decisionsOnTheLease();

        Reply reply = postRaw("/api/v1/leases/" + lease + "/renew", body);

        assertProblem(reply, 400, says);
        assertThat(leaseNow().get("expiresAt").asText()).isEqualTo(expiresBefore);
        assertThat(decisionsOnTheLease()).isEqualTo(decisionsBefore);
    }

    @Test
    void aHeartbeatWithUsageRecordsOneSamplePerGpuAtTheTimeGiven() {
        Instant at = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MICROS); // after the lease was granted
        String other = leaseNow().at("/shares/1/deviceId").asText();

        Reply beat = api.post("/api/v1/leases/" + lease + "/heartbeat", Map.of("at", at.toString(), "gpus", List.of(
                Map.of("deviceId", device, "utilisationPercent", 80, "memoryUsedMib", 1024),
                Map.of("deviceId", other, "utilisationPercent", 20))), vision);

        assertThat(beat.status()).as(beat.body().toString()).isEqualTo(200);
        assertThat(Instant.parse(beat.body().get("lastHeartbeat").asText())).isEqualTo(at);
        assertThat(usageSamplesOfTheLease()).isEqualTo(2);
    }

    @Test
    void aLateHeartbeatNeverMakesTheHolderLookSilentForLonger() {
        Instant latest = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MICROS);
        assertThat(api.post("/api/v1/leases/" + lease + "/heartbeat", Map.of("at", latest.toString()), vision).status()).isEqualTo(200);

        Reply late = api.post("/api/v1/leases/" + lease + "/heartbeat", Map.of("at", latest.minusSeconds(60).toString(),
                "gpus", List.of(Map.of("deviceId", device, "utilisationPercent", 40))), vision);

        assertThat(late.status()).as(late.body().toString()).isEqualTo(200);
        assertThat(Instant.parse(late.body().get("lastHeartbeat").asText())).isEqualTo(latest);
        assertThat(Instant.parse(leaseNow().get("lastHeartbeat").asText())).isEqualTo(latest);
        assertThat(usageSamplesOfTheLease()).as("the late sample is still kept").isEqualTo(1);
    }

    @Test
    void aHeartbeatWithoutABodyOnlySaysTheHolderIsAlive() {
        Reply beat = api.send(HttpRequest.POST("/api/v1/leases/" + lease + "/heartbeat", ""), vision);

        assertThat(beat.status()).as(beat.body().toString()).isEqualTo(200);
        assertThat(Duration.between(Instant.parse(beat.body().get("lastHeartbeat").asText()), Instant.now()).abs().toSeconds())
                .isLessThan(60);
        assertThat(usageSamplesOfTheLease()).isZero();
    }

    static Stream<Arguments> badHeartbeats() {
        return Stream.of(
                arguments("a device of another lease", "{\"gpus\":[{\"deviceId\":\"l40s-a-gpu0\",\"utilisationPercent\":5}]}",
                        "Device 'l40s-a-gpu0' is not part of lease"),
                arguments("a device without an id", "{\"gpus\":[{\"utilisationPercent\":5}]}", "is not part of lease"),
                arguments("no GPU at all in the list", "{\"gpus\":[null]}", "gpus[0]"),
                arguments("a utilisation over 100 percent", "{\"gpus\":[{\"deviceId\":\"$D\",\"utilisationPercent\":100.5}]}",
                        "utilisationPercent of $D must be 0..100, was 100.5"),
                arguments("a negative utilisation", "{\"gpus\":[{\"deviceId\":\"$D\",\"utilisationPercent\":-1}]}",
                        "utilisationPercent of $D must be 0..100"),
                arguments("no utilisation", "{\"gpus\":[{\"deviceId\":\"$D\",\"memoryUsedMib\":10}]}",
                        "utilisationPercent of $D must be 0..100"),
                arguments("negative memory", "{\"gpus\":[{\"deviceId\":\"$D\",\"utilisationPercent\":5,\"memoryUsedMib\":-1}]}",
                        "memoryUsedMib of $D must be >= 0"),
                arguments("a good sample and then a bad one",
                        "{\"gpus\":[{\"deviceId\":\"$D\",\"utilisationPercent\":5},{\"deviceId\":\"nope\",\"utilisationPercent\":5}]}",
                        "Device 'nope' is not part of lease"),
                arguments("a time in the future", "{\"at\":\"2100-01-01T00:00:00Z\"}", "is in the future"),
                arguments("a time that is not a time", "{\"at\":\"yesterday\"}", "yesterday"),
                arguments("a time before any lease could exist", "{\"at\":\"1970-01-01T00:00:00Z\"}", "1970-01-01T00:00:00Z"),
                arguments("a time far before the calendar", "{\"at\":\"-999999999-01-01T00:00:00Z\"}", "-999999999-01-01T00:00:00Z"));
    }

    @ParameterizedTest(name = "a heartbeat with {0} is refused and records nothing")
    @MethodSource("badHeartbeats")
    void aBadHeartbeatIsRefusedWith400AndRecordsNothing(String what, String body, String says) {
        String heartbeatBefore = leaseNow().path("lastHeartbeat").asText();

        Reply reply = postRaw("/api/v1/leases/" + lease + "/heartbeat", body.replace("$D", device));

        assertProblem(reply, 400, says.replace("$D", device));
        assertThat(leaseNow().path("lastHeartbeat").asText()).isEqualTo(heartbeatBefore);
        assertThat(usageSamplesOfTheLease()).isZero();
    }

    static Stream<String> holderCalls() {
        return Stream.of("renew", "release", "heartbeat");
    }

    @ParameterizedTest(name = "{0} on a released lease is a conflict that changes nothing")
    @MethodSource("holderCalls")
    void aCallOnAReleasedLeaseIsAConflictThatChangesNothing(String call) {
        assertThat(api.post("/api/v1/leases/" + lease + "/release", Map.of(), vision).status()).isEqualTo(200);
        JsonNode released = leaseNow();
        int decisions = decisionsOnTheLease();

        Reply reply = api.post("/api/v1/leases/" + lease + "/" + call,
                call.equals("renew") ? Map.of("ttlSeconds", 60) : Map.of(), vision);

        assertProblem(reply, 409, "Lease " + lease + " is RELEASED; it no longer holds GPUs");
        assertThat(leaseNow()).isEqualTo(released);
        assertThat(decisionsOnTheLease()).isEqualTo(decisions);
        assertThat(usageSamplesOfTheLease()).isZero();
    }

    @ParameterizedTest(name = "{0} on an unknown lease is not found")
    @MethodSource("holderCalls")
    void aCallOnAnUnknownLeaseIsNotFound(String call) {
        Reply reply = api.post("/api/v1/leases/no-such-lease/" + call,
                call.equals("renew") ? Map.of("ttlSeconds", 60) : Map.of(), vision);

        assertProblem(reply, 404, "Unknown lease 'no-such-lease'");
    }

    @ParameterizedTest(name = "a viewer may not {0} a lease")
    @MethodSource("holderCalls")
    void aViewerMayNotActForTheHolder(String call) {
        String viewer = api.post("/api/v1/tokens", Map.of("name", "viewer-" + call, "role", "viewer"), ADMIN).body().get("secret").asText();
        JsonNode before = leaseNow();

        Reply reply = api.post("/api/v1/leases/" + lease + "/" + call,
                call.equals("renew") ? Map.of("ttlSeconds", 60) : Map.of(), viewer);

        assertProblem(reply, 403, "Role 'viewer' may not call this endpoint");
        assertThat(leaseNow()).isEqualTo(before);
    }

    @Test
    void releasingEndsTheRequestWithTheLeaseAndFreesItsGpus() {
        String request = leaseNow().get("requestId").asText();

        Reply released = api.post("/api/v1/leases/" + lease + "/release", Map.of(), vision);

        assertThat(released.status()).isEqualTo(200);
        assertThat(released.body().get("state").asText()).isEqualTo("RELEASED");
        assertThat(api.get("/api/v1/requests/" + request, vision).body().at("/request/state").asText()).isEqualTo("ENDED");
        assertThat(api.get("/api/v1/devices/" + device, ADMIN).body().get("allocatedMilli").asInt()).isZero();
    }
}
