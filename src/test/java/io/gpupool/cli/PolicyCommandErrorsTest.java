package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.testing.Api;
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

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gpupool policy …} when something is wrong: a version the server does not hold or that is
 * not a version, a folder that is not a rule set, options missing or given together that exclude
 * each other, a token that may not manage policy. Each ends with its exit code and one line saying
 * why, and the active version stays v1.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PolicyCommandErrorsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    EmbeddedServer server;
    Api api;
    CliRun admin;
    String url;

    @BeforeAll
    void start() {
        api = new Api(client);
        SmallFleet.load(api);
        url = server.getURL().toString();
        admin = CliRun.against(url, ADMIN);
    }

    private String active() {
        return api.get("/api/v1/policies", ADMIN).body().toString();
    }

    @ParameterizedTest(name = "policy {0} 99 is the server''s 404 and nothing is activated")
    @ValueSource(strings = {"activate", "rollback"})
    void activatingAVersionTheServerDoesNotHoldIsItsNotFound(String verb) {
        String before = active();

        CliRun.Result result = admin.run("policy", verb, "99");

        assertThat(result.exitCode()).as(result.err()).isEqualTo(1);
        assertThat(result.err()).startsWith("gpupool: 404").contains("99");
        assertThat(result.out()).isEmpty();
        assertThat(active()).isEqualTo(before);
    }

    @Test
    void aVersionThatIsNotANumberIsTheServersRefusalNamingIt() {
        CliRun.Result result = admin.run("policy", "rollback", "seven");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).contains("A policy version is a number such as 7 or v7, was 'seven'");
    }

    @Test
    void diffingAgainstAVersionTheServerDoesNotHoldIsItsNotFound() {
        CliRun.Result result = admin.run("policy", "diff", "v1", "99");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).startsWith("gpupool: 404");
        assertThat(result.out()).isEmpty();
    }

    @Test
    void aVersionDiffedWithItselfUnderBothSpellingsHasNoDifferences() {
        CliRun.Result result = admin.run("policy", "diff", "1", "v1");

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out()).isEqualTo("(no differences)\n");
    }

    @Test
    void pushingAPathThatIsNotAFolderIsAUsageErrorBeforeAnyCall(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("rules.drl"), "package x;");

        CliRun.Result result = CliRun.against("http://127.0.0.1:1", ADMIN).run("policy", "push", file.toString(), "-m", "one file");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("not a folder: " + file);
    }

    @Test
    void pushingWithoutAMessageIsAUsageError(@TempDir Path dir) {
        CliRun.Result result = admin.run("policy", "push", dir.toString());

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("Missing required option").contains("--message");
    }

    @Test
    void aDryRunNeedsEitherAVersionOrAFolder() {
        CliRun.Result result = admin.run("policy", "dry-run");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("Missing required argument");
    }

    @Test
    void aDryRunOfAVersionAndAFolderAtOnceIsAUsageError(@TempDir Path dir) {
        CliRun.Result result = admin.run("policy", "dry-run", "1", "--dir", dir.toString());

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("mutually exclusive");
    }

    @Test
    void policyWithoutASubcommandIsAUsageErrorListingThem() {
        CliRun.Result result = admin.run("policy");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("list", "push", "diff", "dry-run", "activate", "rollback", "history", "verify");
    }

    @ParameterizedTest(name = "a tenant token is refused policy {0}")
    @ValueSource(strings = {"list", "history", "verify"})
    void aTenantTokenIsRefusedEveryPolicyCommand(String command) {
        CliRun tenant = CliRun.against(url, SmallFleet.tenantToken(api, "vision"));

        CliRun.Result result = tenant.run("policy", command);

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).startsWith("gpupool: 403").contains("Role 'tenant' may not call this endpoint");
    }

    @Test
    void aViewerMayListButNotActivate() {
        String viewer = api.post("/api/v1/tokens", java.util.Map.of("name", "policy-viewer", "role", "viewer"), ADMIN)
                .body().get("secret").asText();
        CliRun asViewer = CliRun.against(url, viewer);
        String before = active();

        assertThat(asViewer.run("policy", "list").exitCode()).isZero();
        CliRun.Result activate = asViewer.run("policy", "activate", "1");

        assertThat(activate.exitCode()).isEqualTo(1);
        assertThat(activate.err()).startsWith("gpupool: 403");
        assertThat(active()).isEqualTo(before);
    }

    @Test
    void theListAsJsonNamesTheActiveVersion() throws Exception {
        CliRun.Result result = admin.run("policy", "list", "-o", "json");

        assertThat(result.exitCode()).as(result.err()).isZero();
        JsonNode list = JSON.readTree(result.out());
        assertThat(list.toString()).contains("\"version\":1");
    }

    @Test
    void theHistoryOfAFreshServiceVerifiesAsIntact() {
        CliRun.Result result = admin.run("policy", "verify");

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out()).contains("intact");
    }
}
