package io.gpupool.governance;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.PolicyFiles;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The findings, replayed over REST by an admin: rule files that wrote a file on the server,
 * reached System through a method handle (and killed the server from a dry-run), or hung a dry-run
 * with a recursive function. Each is now refused with a 422 naming the rule; the active version
 * stays; nothing is written outside the database; the service keeps answering.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
@Property(name = "gpupool.policy.max-evaluation", value = "2s")
class HostileRuleUploadApiTest {
    private static final Path MARK = Path.of(System.getProperty("java.io.tmpdir"), "gpupool-upload-" + ProcessHandle.current().pid());

    @Inject
    @Client("/")
    HttpClient client;
    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(client);
    }

    @Test
    void aLoggingFileHandlerIsRefusedAtUploadAndNoFileIsWritten() {
        Reply reply = upload("admission/log.drl", rule("Log to a file",
                "new java.util.logging.FileHandler(\"" + MARK + "\").publish(null);"));

        assertThat(reply.status()).isEqualTo(422);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.body().get("errors").toString()).contains("SANDBOX").contains("admission/log.drl:3")
                .contains("rule \\\"Log to a file\\\" uses java.util.logging.FileHandler").contains("logging handlers");
        assertThat(activeVersion()).isEqualTo(1);
        assertThat(api.get("/api/v1/policies/history", ADMIN).body().findValuesAsText("event")).last().isEqualTo("VALIDATION_FAILED");
        assertThat(Files.exists(MARK)).isFalse();
    }

    @Test
    void aMethodHandleRouteToExitIsRefusedInADryRunAndTheServiceKeepsAnswering() {
        Reply reply = dryRun("admission/exit.drl", rule("Exit through a handle",
                "java.lang.invoke.MethodHandles.publicLookup().findClass(\"java.lang.Sys\" + \"tem\");"));

        assertThat(reply.status()).isEqualTo(422);
        assertThat(reply.body().get("errors").toString()).contains("java.lang.invoke.MethodHandles")
                .contains("reflection and method handles");
        assertThat(api.get("/api/v1/policies", ADMIN).status()).isEqualTo(200);
        assertThat(activeVersion()).isEqualTo(1);
    }

    @Test
    void aRecursiveFunctionInAConstraintIsStoppedByOneBudgetAndTheDryRunAnswers() {
        Reply reply = dryRun("admission/fib.drl", """
                package io.gpupool.rules.admission;
                import io.gpupool.policy.fact.RequestFact;
                function long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
                rule "Slow admission"
                when
                    RequestFact( fib(90) > 0 )
                then
                end
                """);

        assertThat(reply.status()).isEqualTo(422);
        String errors = reply.body().get("errors").toString();
        assertThat(errors).contains("Evaluation stopped: function fib ran longer than 2000 ms");
        // Validation stops at the first evaluation that runs out of budget: one budget spent, not one
        // per fixture, scenario or queued request (each would have added its own message).
        assertThat(errors.split("Evaluation stopped", -1)).as("one budget spent: " + errors).hasSize(2);
        assertThat(api.get("/api/v1/policies", ADMIN).status()).isEqualTo(200);
    }

    @Test
    void anUploadedRunawayLoopIsRefusedNamingItsRuleAndTheActiveVersionStays() {
        Reply reply = upload("admission/spin.drl", rule("Spin forever",
                "long i = 0; while (i >= 0) { i++; if (i == Long.MAX_VALUE) { i = 0; } }"));

        assertThat(reply.status()).isEqualTo(422);
        assertThat(reply.body().get("errors").toString()).contains("Evaluation stopped: rule \\\"Spin forever\\\" ran longer than");
        assertThat(activeVersion()).isEqualTo(1);
        Reply placed = api.post("/api/v1/requests", Map.of("tenant", "nobody-yet", "kind", "training", "gpus", 1), ADMIN);
        assertThat(placed.status()).as("the service still decides requests").isBetween(200, 499);
    }

    private Reply upload(String path, String drl) {
        return api.post("/api/v1/policies", Map.of("message", "hostile", "files",
                PolicyFiles.withFile(PolicyFiles.defaults(), path, drl)), ADMIN);
    }

    private Reply dryRun(String path, String drl) {
        return api.post("/api/v1/policies/dry-run", Map.of("files", PolicyFiles.withFile(PolicyFiles.defaults(), path, drl)), ADMIN);
    }

    private long activeVersion() {
        return api.get("/api/v1/policies", ADMIN).body().get("active").asLong();
    }

    private static String rule(String name, String consequence) {
        return "package io.gpupool.rules.admission;\nimport io.gpupool.policy.fact.RequestFact;\nrule \"" + name
                + "\"\nwhen\n    RequestFact( )\nthen\n    " + consequence + "\nend\n";
    }
}
