package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commands that show what runs and what waits — requests, leases, queue, decisions, explain —
 * against a test server on the small fleet where vision holds 8 H100s and waits for 16 more, and
 * how each ends when the server refuses (exit code 1 and the problem's detail), when the command
 * line is wrong (exit code 2 and the usage) and when the connection options are.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    EmbeddedServer server;
    Api api;
    CliRun admin;
    String url;
    String visionToken;
    String otherOrgToken;
    String placed;
    String lease;
    String queued;

    @BeforeAll
    void visionHoldsEightAndWaitsForSixteen() {
        api = new Api(client);
        SmallFleet.load(api);
        url = server.getURL().toString();
        admin = CliRun.against(url, ADMIN);
        visionToken = SmallFleet.tenantToken(api, "vision");
        otherOrgToken = SmallFleet.tenantToken(api, "other-org");
        Reply first = api.post("/api/v1/requests", request("vision", "training", 8, "models", java.util.List.of("H100-SXM-80G")), visionToken);
        assertThat(first.status()).as(first.body().toString()).isEqualTo(201);
        placed = first.body().at("/request/id").asText();
        lease = first.body().at("/lease/id").asText();
        Reply second = api.post("/api/v1/requests", request("vision", "training", 16, "gangSize", 2), visionToken);
        assertThat(second.status()).as(second.body().toString()).isEqualTo(202);
        queued = second.body().at("/request/id").asText();
    }

    private static String[] lines(String out) {
        return out.split("\n");
    }

    @Test
    void requestsShowsEachRequestAskedForWithItsStateLeaseAndWhyItWaits() {
        CliRun.Result result = admin.run("requests", placed, queued);

        assertThat(result.exitCode()).as(result.err()).isZero();
        String[] lines = lines(result.out());
        assertThat(lines[0]).startsWith("REQUEST").contains("TENANT", "STATE", "GPUS", "KIND", "LEASE", "POSITION", "WHY PENDING");
        assertThat(lines).hasSize(3);
        assertThat(lines[1]).startsWith(placed).contains("vision", "PLACED", "TRAINING", lease);
        assertThat(lines[2]).startsWith(queued).contains("QUEUED", "16").contains("quota: ");
    }

    @Test
    void oneRequestAsJsonIsTheServersAnswerAsItCame() throws Exception {
        CliRun.Result result = admin.run("requests", queued, "-o", "json");

        assertThat(result.exitCode()).as(result.err()).isZero();
        JsonNode answer = JSON.readTree(result.out());
        assertThat(answer.at("/request/id").asText()).isEqualTo(queued);
        assertThat(answer.get("queuePosition").asInt()).isEqualTo(1);
        assertThat(answer.at("/request/whyPending/blockedBy").asText()).isEqualTo("QUOTA");
    }

    @Test
    void theFirstUnknownRequestAmongSeveralEndsTheCommandWithItsDetail() {
        CliRun.Result result = admin.run("requests", placed, "no-such-request", queued);

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).isEqualTo("gpupool: 404 Not found: Unknown request 'no-such-request'\n");
        assertThat(result.out()).isEmpty();
    }

    @Test
    void leasesOfATenantShowTheirGpusAndDevices() {
        CliRun.Result result = admin.run("leases", "--tenant", "vision", "--state", "ACTIVE");

        assertThat(result.exitCode()).as(result.err()).isZero();
        String[] lines = lines(result.out());
        assertThat(lines[0]).startsWith("ID").contains("TENANT", "POOL", "STATE", "KIND", "GPUS", "DEVICES", "EXPIRES", "DEADLINE");
        assertThat(lines).hasSize(2);
        assertThat(lines[1]).startsWith(lease).contains("vision", "training", "ACTIVE", " 8 ");
        assertThat(lines[1]).contains("h100-");
    }

    @Test
    void aLeaseShownByIdAsJsonIsThatLease() throws Exception {
        CliRun.Result result = admin.run("leases", lease, "-o", "json");

        assertThat(result.exitCode()).as(result.err()).isZero();
        JsonNode shown = JSON.readTree(result.out());
        assertThat(shown.get("id").asText()).isEqualTo(lease);
        assertThat(shown.get("shares")).hasSize(8);
    }

    @Test
    void aLeaseStateTheServerDoesNotKnowIsItsRefusalWithExitCodeOne() {
        CliRun.Result result = admin.run("leases", "--state", "FINISHED");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).startsWith("gpupool: 400").contains("FINISHED");
    }

    @Test
    void theQueueShowsEachWaitingRequestWithItsPositionAndWhy() {
        CliRun.Result result = admin.run("queue");

        assertThat(result.exitCode()).as(result.err()).isZero();
        String[] lines = lines(result.out());
        assertThat(lines[0]).startsWith("POOL").contains("POS", "REQUEST", "TENANT", "GPUS", "KIND", "PRIORITY", "WHY PENDING");
        assertThat(lines[1]).startsWith("training").contains(" 1 ", queued, "vision", "16", "quota: ");
    }

    @Test
    void theQueueOfAPoolWhereNothingWaitsSaysSo() {
        CliRun.Result result = admin.run("queue", "--pool", "dev");

        assertThat(result.exitCode()).isZero();
        assertThat(result.out()).isEqualTo("(no queued requests)\n");
    }

    @Test
    void theDecisionsOnARequestNameItsAdmissionAndRules() {
        CliRun.Result result = admin.run("decisions", "--request", placed);

        assertThat(result.exitCode()).as(result.err()).isZero();
        String[] lines = lines(result.out());
        assertThat(lines[0]).startsWith("ID").contains("AT", "ACTION", "REQUEST", "TENANT", "REASON", "RULES", "MESSAGE");
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("ADMIT", placed, "vision", "PLACED"));
    }

    @Test
    void decisionsAsJsonAreTheLogEntries() throws Exception {
        CliRun.Result result = admin.run("decisions", "--lease", lease, "-o", "json");

        assertThat(result.exitCode()).as(result.err()).isZero();
        JsonNode entries = JSON.readTree(result.out());
        assertThat(entries).isNotEmpty().allSatisfy(e -> assertThat(e.get("leaseId").asText()).isEqualTo(lease));
    }

    @ParameterizedTest(name = "decisions --limit {0} is the server''s refusal")
    @ValueSource(strings = {"0", "1001"})
    void aDecisionLimitOutOfRangeIsTheServersRefusal(String limit) {
        CliRun.Result result = admin.run("decisions", "--limit", limit);

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).contains("limit must be between 1 and 1000, was " + limit);
    }

    @Test
    void aSinceThatIsNotAnInstantIsTheServersRefusal() {
        CliRun.Result result = admin.run("decisions", "--since", "yesterday");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).contains("since: an ISO-8601 instant such as");
    }

    @Test
    void aLimitThatIsNotANumberIsAUsageErrorBeforeAnyCall() {
        CliRun.Result result = CliRun.against("http://127.0.0.1:1", ADMIN).run("decisions", "--limit", "many");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("--limit").contains("many");
    }

    @Test
    void explainPrintsTheRequestItsLeaseAndEveryDecision() {
        CliRun.Result result = CliRun.against(url, visionToken).run("explain", placed);

        assertThat(result.exitCode()).as(result.err()).isZero();
        String out = result.out();
        assertThat(out).contains("request:        " + placed).contains("tenant:         vision").contains("state:          PLACED")
                .contains("lease:          " + lease).contains("lease state:    ACTIVE").contains("policy:         v1")
                .contains("why pending: -");
        assertThat(Arrays.stream(lines(out)).filter(l -> l.contains("ADMIT"))).hasSize(1);
    }

    @Test
    void explainingAQueuedRequestSaysWhyItWaits() {
        CliRun.Result result = admin.run("explain", queued);

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out()).contains("state:          QUEUED").contains("queue position: 1").contains("why pending: quota: ");
    }

    @Test
    void anotherOrganisationsTokenIsRefusedEveryCommandOnVisionsWorkWithoutLearningWhose() {
        CliRun other = CliRun.against(url, otherOrgToken);

        for (String[] command : new String[][] {{"explain", placed}, {"requests", queued}, {"leases", lease},
                {"leases", "--tenant", "vision"}}) {
            CliRun.Result result = other.run(command);
            assertThat(result.exitCode()).as(String.join(" ", command)).isEqualTo(1);
            assertThat(result.err()).as(String.join(" ", command)).startsWith("gpupool: 403").contains("not yours")
                    .doesNotContain("'vision'");
            assertThat(result.out()).isEmpty();
        }
    }

    @Test
    void anotherOrganisationsQueueAndLeasesAreEmptyForIt() {
        CliRun other = CliRun.against(url, otherOrgToken);

        assertThat(other.run("queue").out()).isEqualTo("(no queued requests)\n");
        assertThat(other.run("leases").out()).doesNotContain(lease);
        assertThat(other.run("decisions", "--request", placed).out()).doesNotContain(placed);
    }

    @Test
    void withoutATokenTheServersUnauthorizedAnswerEndsWithExitCodeOne() {
        CliRun.Result result = CliRun.against(url, null).run("leases");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).startsWith("gpupool: 401").contains("Missing bearer token");
    }

    @ParameterizedTest(name = "{0} without its argument is a usage error")
    @ValueSource(strings = {"explain", "requests"})
    void aCommandWithoutTheIdItNeedsIsAUsageError(String command) {
        CliRun.Result result = admin.run(command);

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("Missing required parameter: 'REQUEST'").contains("Usage: gpupool " + command);
    }

    @ParameterizedTest(name = "--timeout {0} is a usage error")
    @ValueSource(strings = {"0s", "-5s", "0", "0ms", "soon", "5y"})
    void aTimeoutThatIsNotAPositiveDurationIsAUsageError(String timeout) {
        CliRun.Result result = admin.run("leases", "--timeout", timeout);

        assertThat(result.exitCode()).as(result.err()).isEqualTo(2);
        assertThat(result.err()).contains("'" + timeout + "'").contains("Try 'gpupool leases --help'.");
        assertThat(result.out()).isEmpty();
    }

    @ParameterizedTest(name = "--url {0} is a usage error")
    @ValueSource(strings = {"ftp://example.com", "localhost:8080", "http://[broken"})
    void aUrlThatIsNotHttpIsAUsageError(String badUrl) {
        CliRun.Result result = admin.run("queue", "--url", badUrl);

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains(badUrl);
    }

    @Test
    void aConfigFileNamedOnTheCommandLineThatDoesNotExistIsAUsageError(@TempDir Path dir) {
        CliRun.Result result = CliRun.withoutEnvironment().run("queue", "--config", dir.resolve("nope.yaml").toString());

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("config file").contains("nope.yaml").contains("does not exist");
    }

    @Test
    void aConfigFileThatIsNotYamlIsAUsageErrorNamingIt(@TempDir Path home) throws Exception {
        Path config = home.resolve(".config/gpupool/config.yaml");
        Files.createDirectories(config.getParent());
        Files.writeString(config, "url: [http://localhost:8080\ntoken: {");

        CliRun.Result result = CliRun.withoutEnvironment().home(home).run("queue");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains(config.toString()).contains("is not readable YAML");
    }
}
