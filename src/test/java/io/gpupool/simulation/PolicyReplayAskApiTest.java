package io.gpupool.simulation;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Asking the service to replay demand under other policies (POST /policies/replay): an ask it
 * cannot run is answered at once with a 4xx problem saying what to fix, and never becomes a job.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PolicyReplayAskApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    Api api;
    String workload;

    @BeforeAll
    void loadFleet() {
        api = new Api(client);
        SmallFleet.load(api);
        workload = twoRequestsOfTheExampleDay();
    }

    @AfterEach
    void noJobWasMade() {
        assertThat(api.get("/api/v1/policies/replay", ADMIN).body()).as("jobs kept").isEmpty();
    }

    private static String twoRequestsOfTheExampleDay() {
        try {
            return String.join("\n", Files.readAllLines(Path.of("policies-examples/workload/example-day.csv")).subList(0, 3)) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Reply ask(String json) {
        return api.send(HttpRequest.POST("/api/v1/policies/replay", json).contentType(MediaType.APPLICATION_JSON_TYPE), ADMIN);
    }

    private static String quoted(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    static Stream<Arguments> asksWithoutTheirParts() {
        String hourAgo = Instant.now().minus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS).toString();
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        return Stream.of(
                arguments("no body", "", 400, "A replay body is required"),
                arguments("no workload", "{\"policies\":[\"active\"]}", 400, "Give exactly one workload"),
                arguments("two workloads", "{\"history\":{\"from\":\"" + hourAgo + "\",\"to\":\"" + now + "\"},\"workload\":\"x\",\"policies\":[\"active\"]}",
                        400, "Give exactly one workload"),
                arguments("no policy", "{\"workload\":\"x\"}", 400, "policies: name at least one"),
                arguments("an empty list of policies", "{\"workload\":\"x\",\"policies\":[]}", 400, "policies: name at least one"),
                arguments("a history without its start", "{\"history\":{\"to\":\"" + now + "\"},\"policies\":[\"active\"]}", 400,
                        "history: 'from' and 'to' are required"),
                arguments("a history that ends before it starts", "{\"history\":{\"from\":\"" + now + "\",\"to\":\"" + hourAgo + "\"},\"policies\":[\"active\"]}",
                        400, "'from' before 'to'"),
                arguments("a history that ends in the future", "{\"history\":{\"from\":\"" + hourAgo + "\",\"to\":\"2100-01-01T00:00:00Z\"},\"policies\":[\"active\"]}",
                        400, "after now"),
                arguments("a trace without its nodes", "{\"trace\":{\"pods\":\"x\"},\"policies\":[\"active\"]}", 400,
                        "trace: both 'pods' and 'nodes' (CSV text) are required"),
                arguments("a history that is not a time", "{\"history\":{\"from\":\"yesterday\",\"to\":\"" + now + "\"},\"policies\":[\"active\"]}",
                        400, "yesterday"),
                arguments("an unknown field", "{\"workload\":\"x\",\"policies\":[\"active\"],\"speed\":\"fast\"}", 400, "speed"));
    }

    @ParameterizedTest(name = "an ask with {0} is refused and makes no job")
    @MethodSource("asksWithoutTheirParts")
    void anAskWithoutWhatAReplayNeedsIsRefused(String what, String body, int status, String says) {
        Reply reply = ask(body);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(status);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.body().toString()).contains(says);
    }

    @Test
    void aWorkloadLineThatDoesNotParseIsUnprocessableNamingItsLine() {
        Reply reply = ask("{\"workload\":" + quoted(workload + "req-x,vision,not-a-time,1,dev,,,1,60,,0.5,\n") + ",\"policies\":[\"active\"]}");

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(422);
        assertThat(reply.detail()).startsWith("The replay's input does not check").contains("workload:4");
    }

    @ParameterizedTest(name = "policies [{0}] is refused naming it")
    @ValueSource(strings = {"seven", "v", "upload"})
    void aPolicyThatIsNotOneIsRefused(String policy) {
        Reply reply = ask("{\"workload\":" + quoted(workload) + ",\"policies\":[\"" + policy + "\"]}");

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.detail()).contains("policies: ");
    }

    @Test
    void aVersionTheServiceDoesNotHoldIsNotFound() {
        Reply reply = ask("{\"workload\":" + quoted(workload) + ",\"policies\":[\"active\",\"99\"]}");

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(404);
        assertThat(reply.detail()).contains("99");
    }

    static Stream<Arguments> badSettings() {
        return Stream.of(
                arguments("sweepEvery", "0s"),
                arguments("passEvery", "-5m"),
                arguments("sampleEvery", "ten minutes"),
                arguments("sweepEvery", "99999999999999999999h"),
                arguments("passEvery", "9223372036854775807h"),
                arguments("sampleEvery", "5d"));
    }

    @ParameterizedTest(name = "settings.{0} = {1} is unprocessable, naming the setting")
    @MethodSource("badSettings")
    void aSettingThatIsNotAPositiveDurationIsUnprocessableNamingIt(String setting, String value) {
        Reply reply = ask("{\"workload\":" + quoted(workload) + ",\"policies\":[\"active\"],\"settings\":{\"" + setting + "\":\"" + value + "\"}}");

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(422);
        assertThat(reply.detail()).contains("settings." + setting).contains("a positive duration such as 30s, 5m or 1h");
    }

    @Test
    void anUploadedRuleSetThatDoesNotCompileIsUnprocessableNamingItsFile() {
        Map<String, Object> body = Map.of("workload", workload, "policies", List.of("active", "upload"),
                "upload", Map.of("admission/broken.drl", "package rules.admission;\nrule \"Broken\" when then end oops"));

        Reply reply = api.post("/api/v1/policies/replay", body, ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(422);
        assertThat(reply.body().toString()).contains("admission/broken.drl");
    }

    @Test
    void aTenantMayNotAskForAReplay() {
        Reply reply = api.send(HttpRequest.POST("/api/v1/policies/replay", "{\"workload\":" + quoted(workload) + ",\"policies\":[\"active\"]}")
                .contentType(MediaType.APPLICATION_JSON_TYPE), SmallFleet.tenantToken(api, "vision"));

        assertThat(reply.status()).isEqualTo(403);
        assertThat(reply.detail()).contains("Role 'tenant' may not call this endpoint");
    }

    @ParameterizedTest(name = "{0} of an unknown job is not found")
    @ValueSource(strings = {"GET /no-such-job", "GET /no-such-job/files/summary.csv", "DELETE /no-such-job"})
    void anUnknownJobIsNotFound(String call) {
        String[] parts = call.split(" ");
        Reply reply = api.send(HttpRequest.create(io.micronaut.http.HttpMethod.valueOf(parts[0]), "/api/v1/policies/replay" + parts[1]), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(404);
        assertThat(reply.contentType()).startsWith("application/problem+json");
    }
}
