package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.testing.Api;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/** The admin commands against a running test server on the shipped fleet. */
@MicronautTest(transactional = false)
@DatabaseTest
class CommandLineTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    EmbeddedServer server;
    Api api;
    CliRun cli;

    @BeforeEach
    void setUp() {
        api = new Api(client);
        FleetLoaded.ensure(api);
        cli = CliRun.against(server.getURL().toString(), ADMIN);
    }

    @Test
    void devicesAsJsonAreTheServersPageOfTheShippedFleet() throws Exception {
        CliRun.Result result = cli.run("devices", "--pool", "critical", "-o", "json");

        assertThat(result.exitCode()).as(result.err()).isZero();
        JsonNode page = JSON.readTree(result.out());
        assertThat(page.get("total").asInt()).isEqualTo(16);
        assertThat(page.get("items")).hasSize(16).allSatisfy(d -> {
            assertThat(d.get("poolId").asText()).isEqualTo("critical");
            assertThat(d.get("uuid").asText()).startsWith("GPU-");
        });
    }

    @Test
    void devicesAsATableShowAHeaderOneRowPerDeviceAndTheCount() {
        CliRun.Result result = cli.run("devices", "--node", "fra-h100-01");

        assertThat(result.exitCode()).isZero();
        String[] lines = result.out().split("\n");
        assertThat(lines[0]).startsWith("ID").contains("MODEL", "NODE", "POOL", "HEALTH", "TIER", "FREE", "UUID");
        assertThat(lines).hasSize(1 + 8 + 1);
        assertThat(lines[1]).startsWith("fra-h100-01-gpu0").contains("H100-SXM-80G", "1000/1000");
        assertThat(lines[9]).isEqualTo("(8 devices)");
    }

    @Test
    void aPartialPageSaysHowManyThereAreInAll() {
        CliRun.Result result = cli.run("devices", "--size", "2");

        assertThat(result.out()).contains("(2 of 324 devices, page 0; use --page/--size for more)");
    }

    @Test
    void nodesClustersPoolsAndQuotasPrintTables() {
        assertThat(cli.run("nodes", "--cluster", "iad-infer").out()).startsWith("ID").contains("iad-t4-01");
        assertThat(cli.run("clusters").out()).contains("fra-train", "InfiniBand NDR");
        assertThat(cli.run("pools").out()).contains("critical", "CRITICAL_RESERVED");
        assertThat(cli.run("quotas", "--tenant", "nlp").out()).startsWith("TENANT").contains("H100-SXM-80G");
    }

    @Test
    void anUnknownRequestPrintsTheProblemDetailAndExitsWithOne() {
        CliRun.Result result = cli.run("explain", "no-such-request");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).contains("404").contains("Unknown request 'no-such-request'");
        assertThat(result.out()).isEmpty();
    }

    @Test
    void aViewerPushingAPolicyIsRefusedWithTheServersDetailAndExitsWithOne() {
        String viewer = api.post("/api/v1/tokens", Map.of("name", "cli-viewer", "role", "viewer"), ADMIN)
                .body().get("secret").asText();

        CliRun.Result result = cli.run("policy", "push", "policies-examples/inference-first", "-m", "x", "--token", viewer);

        assertThat(result.exitCode()).as(result.err()).isEqualTo(1);
        assertThat(result.err()).startsWith("gpupool: 403");
    }

    @Test
    void anUnreachableServerExitsWithThree() {
        CliRun.Result result = cli.run("pools", "--url", "http://127.0.0.1:1");

        assertThat(result.exitCode()).isEqualTo(3);
        assertThat(result.err()).contains("cannot reach http://127.0.0.1:1");
    }

    @Test
    void anUnknownCommandPrintsTheUsageAndExitsWithTwo() {
        CliRun.Result result = cli.run("xyzzy");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("Unmatched argument at index 0: 'xyzzy'").contains("Usage: gpupool")
                .contains("devices", "policy", "run", "agent");
    }

    @Test
    void aBadOptionValueIsAUsageError() {
        assertThat(cli.run("devices", "-o", "xml").exitCode()).isEqualTo(2);
        assertThat(cli.run("run", "--gpus", "1").exitCode()).as("no command to run").isEqualTo(2);
    }

    @Test
    void onlyNoArgumentsServeOrMicronautPropertiesStartTheServer() {
        assertThat(Cli.startsServer()).isTrue();
        assertThat(Cli.startsServer("serve")).isTrue();
        assertThat(Cli.startsServer("--micronaut.server.port=8081")).isTrue();
        assertThat(Cli.serverArgs("serve", "--micronaut.server.port=8081")).containsExactly("--micronaut.server.port=8081");
        assertThat(Cli.startsServer("agent")).isFalse();
        assertThat(Cli.startsServer("devices")).isFalse();
        assertThat(Cli.startsServer("--help")).isFalse();
    }

    @Test
    void theJarsMainClassAnswersAnUnknownCommandWithTheUsageAndExitCodeTwoInsteadOfStartingAServer() throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.gpupool.Application", "xyzzy")
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());

        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(output).contains("Usage: gpupool").doesNotContain("Startup completed");
    }

    @Test
    void theConfigFileGivesUrlAndTokenTheEnvironmentOverridesItAndFlagsOverrideBoth(@TempDir Path home) throws Exception {
        Path config = home.resolve(".config/gpupool/config.yaml");
        Files.createDirectories(config.getParent());
        Files.writeString(config, "url: " + server.getURL() + "\ntoken: " + ADMIN + "\n");

        assertThat(CliRun.withoutEnvironment().home(home).run("pools").exitCode()).as("from the file").isZero();
        assertThat(CliRun.withoutEnvironment().home(home).env("GPUPOOL_URL", "http://127.0.0.1:1").run("pools").exitCode())
                .as("the environment wins over the file").isEqualTo(3);
        assertThat(CliRun.withoutEnvironment().home(home).env("GPUPOOL_URL", "http://127.0.0.1:1")
                .run("pools", "--url", server.getURL().toString()).exitCode()).as("a flag wins").isZero();
        assertThat(CliRun.withoutEnvironment().home(home).env("GPUPOOL_TOKEN", "wrong").run("pools").exitCode())
                .as("a wrong token from the environment is refused").isEqualTo(1);
        Path other = home.resolve("other.yaml");
        Files.writeString(other, "url: " + server.getURL() + "\n");
        assertThat(CliRun.withoutEnvironment().run("pools", "--config", other.toString()).exitCode())
                .as("--config, without a token").isEqualTo(1);
    }

    @Test
    void aPushedRuleSetCanBeDiffedDryRunActivatedRolledBackAndTheHistoryVerifies() {
        CliRun.Result push = cli.run("policy", "push", "policies-examples/inference-first", "-m", "Serving first");
        assertThat(push.exitCode()).as(push.err()).isZero();
        assertThat(push.out()).startsWith("uploaded v2").contains("policy tests passed");

        CliRun.Result diff = cli.run("policy", "diff", "1", "v2");
        assertThat(diff.out()).contains("--- 1/admission/admission-by-kind.drl").contains("+++ v2/admission/admission-serving-first.drl");

        CliRun.Result dryRun = cli.run("policy", "dry-run", "2");
        assertThat(dryRun.exitCode()).as(dryRun.out() + dryRun.err()).isZero();
        assertThat(dryRun.out()).startsWith("active v1, candidate v2: safe to activate");
        assertThat(dryRun.out()).as("the pipeline's diff and totals").contains("lease(s) end differently", "GPUs changing hands");

        assertThat(cli.run("policy", "activate", "v2", "-m", "try").out()).startsWith("active: v2 (was v1)");
        assertThat(cli.run("policy", "rollback", "1", "-m", "back").out()).startsWith("active: v1 (was v2)");
        assertThat(cli.run("policy", "list").out()).contains("Serving first");
        assertThat(cli.run("policy", "history").out()).contains("UPLOADED", "ACTIVATED");
        CliRun.Result verify = cli.run("policy", "verify");
        assertThat(verify.exitCode()).isZero();
        assertThat(verify.out()).startsWith("intact: ");
    }

    @Test
    void aDryRunOfAFolderNeedsNoUpload() {
        int versions = api.get("/api/v1/policies", ADMIN).body().get("versions").size();

        CliRun.Result result = cli.run("policy", "dry-run", "--dir", "policies-examples/research-lab-fair-share", "-o", "json");

        assertThat(result.exitCode()).as(result.err()).isIn(0, 1);
        assertThat(result.out()).contains("\"candidateVersion\"");
        assertThat(api.get("/api/v1/policies", ADMIN).body().get("versions")).hasSize(versions);
    }

    @Test
    void pushingAFolderWithoutRuleFilesIsAUsageError(@TempDir Path empty) {
        CliRun.Result result = cli.run("policy", "push", empty.toString(), "-m", "nothing");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("holds no .drl");
    }
}
