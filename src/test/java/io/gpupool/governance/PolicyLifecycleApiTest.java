package io.gpupool.governance;

import io.gpupool.store.row.PolicyHistoryRepository;
import io.gpupool.store.row.PolicyHistoryRow;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.PolicyFiles;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admin's journey over REST: broken upload, good upload, dry-run, activate, roll back, verified history.
 * Each test starts from a fresh context (an empty database: the default rule set as v1) and replays the
 * steps of the journey whose records its checks can see.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class PolicyLifecycleApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    PolicyHistoryRepository historyRows;
    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(client);
    }

    private long activeVersion() {
        return api.get("/api/v1/policies", ADMIN).body().get("active").asLong();
    }

    @Test
    void anEmptyDatabaseStartsWithTheDefaultRuleSetAsVersionOne() {
        Reply list = api.get("/api/v1/policies", ADMIN);

        assertThat(list.body().get("active").asLong()).isEqualTo(1);
        assertThat(list.body().at("/versions/0/author").asText()).isEqualTo("system");
        assertThat(api.get("/api/v1/policies/history", ADMIN).body().findValuesAsText("event"))
                .containsExactly("UPLOADED", "ACTIVATED");
    }

    @Test
    void aRuleSetThatDoesNotCompileIsRejectedWithFileLineAndColumn() {
        Reply reply = uploadARuleSetThatDoesNotCompile();

        assertThat(reply.status()).isEqualTo(422);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.body().get("errors").toString()).contains("reclamation/reclamation.drl:");
        assertThat(activeVersion()).isEqualTo(1);
        assertThat(api.get("/api/v1/policies", ADMIN).body().get("versions").size()).isEqualTo(1);
    }

    @Test
    void aRuleSetThatReachesForTheSystemIsRefusedByTheSandbox() {
        Reply reply = uploadARuleSetThatReachesForTheSystem();

        assertThat(reply.status()).isEqualTo(422);
        assertThat(reply.body().get("errors").toString()).contains("SANDBOX").contains("java.lang.System.exit");
        assertThat(activeVersion()).isEqualTo(1);
    }

    @Test
    void aRuleSetThatNeverReachesQuiescenceIsRejectedInsteadOfHanging() {
        Reply reply = uploadARuleSetThatNeverReachesQuiescence();

        assertThat(reply.status()).isEqualTo(422);
        assertThat(reply.body().get("errors").toString()).containsIgnoringCase("quiescence");
    }

    @Test
    void aChangeWithoutAMessageIsABadRequest() {
        Reply reply = api.post("/api/v1/policies", Map.of("files", PolicyFiles.staleAfterTwoMinutes()), ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.detail()).contains("change message is required");
    }

    @Test
    void aGoodRuleSetIsStoredWithItsTestResultsAndRuleCoverage() {
        Reply reply = uploadStaleAfterTwoMinutes();

        assertThat(reply.status()).isEqualTo(201);
        assertThat(reply.body().at("/version/version").asLong()).isEqualTo(2);
        assertThat(reply.body().at("/validation/valid").asBoolean()).isTrue();
        assertThat(reply.body().at("/validation/tests").size()).isGreaterThan(5);
        assertThat(reply.body().at("/validation/coverage/fired").toString())
                .contains("Lease without a heartbeat for five minutes is reclaimed");
        assertThat(reply.body().at("/validation/testSummary").asText()).contains("policy tests passed");
        assertThat(activeVersion()).as("upload does not activate").isEqualTo(1);
    }

    @Test
    void uploadingTheSameContentAgainIsAConflict() {
        assertThat(uploadStaleAfterTwoMinutes().status()).isEqualTo(201);

        Reply reply = api.post("/api/v1/policies", Map.of("message", "again",
                "files", PolicyFiles.staleAfterTwoMinutes()), ADMIN);

        assertThat(reply.status()).isEqualTo(409);
        assertThat(reply.detail()).contains("identical to version v2");
    }

    @Test
    void aDryRunShowsTheLeaseTheCandidateWouldNewlyReclaim() {
        assertThat(uploadStaleAfterTwoMinutes().status()).isEqualTo(201);

        Reply reply = api.post("/api/v1/policies/dry-run",
                Map.of("candidateVersion", 2, "scenario", PolicyFiles.quietLeaseScenario()), ADMIN);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().get("activeVersion").asText()).isEqualTo("v1");
        assertThat(reply.body().get("candidateVersion").asText()).isEqualTo("v2");
        assertThat(reply.body().get("newlyReclaimed").findValuesAsText("id")).as(reply.body().toString()).containsExactly("idle-run");
        assertThat(reply.body().get("newlyReclaimed").get(0).get("ruleAfter").asText())
                .isEqualTo("Lease without a heartbeat for five minutes is reclaimed");
        assertThat(reply.body().get("safeToActivate").asBoolean()).isTrue();
        assertThat(activeVersion()).as("a dry-run changes nothing").isEqualTo(1);
    }

    @Test
    void activatingAndRollingBackAreRecordedInAVerifiedHistory() {
        uploadThreeRejectedRuleSets();
        assertThat(uploadStaleAfterTwoMinutes().status()).isEqualTo(201);

        Reply activated = api.post("/api/v1/policies/2/activate", Map.of("message", "go"), ADMIN);
        assertThat(activated.status()).isEqualTo(200);
        assertThat(activeVersion()).isEqualTo(2);
        assertThat(activated.body().at("/record/rulesChanged").toString())
                .contains("Lease without a heartbeat for five minutes is reclaimed");

        Reply rolledBack = api.post("/api/v1/policies/v1/rollback", Map.of("message", "too aggressive"), ADMIN);
        assertThat(rolledBack.status()).isEqualTo(200);
        assertThat(activeVersion()).isEqualTo(1);

        assertThat(api.get("/api/v1/policies/history", ADMIN).body().findValuesAsText("event")).containsExactly(
                "UPLOADED", "ACTIVATED", "VALIDATION_FAILED", "VALIDATION_FAILED", "VALIDATION_FAILED", "UPLOADED",
                "ACTIVATED", "ROLLED_BACK");
        assertThat(api.get("/api/v1/policies/history/verify", ADMIN).body().get("intact").asBoolean()).isTrue();
    }

    @Test
    void activatingTheActiveVersionOrRollingForwardIsAConflict() {
        v2UploadedActivatedAndRolledBack();

        assertThat(api.post("/api/v1/policies/1/activate", Map.of(), ADMIN).status()).isEqualTo(409);
        assertThat(api.post("/api/v1/policies/2/rollback", Map.of(), ADMIN).status()).isEqualTo(409);
        assertThat(api.post("/api/v1/policies/99/activate", Map.of(), ADMIN).status()).isEqualTo(404);
    }

    @Test
    void aViewerReadsTheHistoryButCannotChangePolicy() {
        v2UploadedActivatedAndRolledBack();
        String viewer = api.post("/api/v1/tokens", Map.of("name", "auditor", "role", "viewer"), ADMIN)
                .body().get("secret").asText();

        assertThat(api.get("/api/v1/policies/history/verify", viewer).status()).isEqualTo(200);
        assertThat(api.post("/api/v1/policies/2/activate", Map.of(), viewer).status()).isEqualTo(403);
        assertThat(activeVersion()).isEqualTo(1);
    }

    @Test
    void editingAHistoryRecordBreaksTheChain() {
        uploadThreeRejectedRuleSets();
        v2UploadedActivatedAndRolledBack();
        PolicyHistoryRow row = historyRows.findById(2L).orElseThrow();
        historyRows.update(new PolicyHistoryRow(row.seq(), row.event(), row.version(), row.contentHash(), "mallory",
                row.message(), row.at(), row.rulesAdded(), row.rulesRemoved(), row.rulesChanged(), row.diff(),
                row.details(), row.prevHash(), row.recordHash()));

        Reply verify = api.get("/api/v1/policies/history/verify", ADMIN);

        assertThat(verify.body().get("intact").asBoolean()).isFalse();
        assertThat(verify.body().get("firstBrokenSeq").asLong()).isEqualTo(2);
    }

    private Reply uploadARuleSetThatDoesNotCompile() {
        Map<String, String> broken = PolicyFiles.withFile(PolicyFiles.defaults(), "reclamation/reclamation.drl",
                PolicyFiles.defaults().get("reclamation/reclamation.drl").replace("then\n", "then\n    this is not java;\n"));
        return api.post("/api/v1/policies", Map.of("message", "broken edit", "files", broken), ADMIN);
    }

    private Reply uploadARuleSetThatReachesForTheSystem() {
        Map<String, String> sneaky = PolicyFiles.withFile(PolicyFiles.defaults(), "admission/exit.drl", """
                package io.gpupool.rules.admission;
                import io.gpupool.policy.fact.RequestFact;
                rule "Exit the JVM"
                when
                    RequestFact()
                then
                    System.exit(1);
                end
                """);
        return api.post("/api/v1/policies", Map.of("message", "sneaky", "files", sneaky), ADMIN);
    }

    private Reply uploadARuleSetThatNeverReachesQuiescence() {
        Map<String, String> looping = PolicyFiles.withFile(PolicyFiles.defaults(), PolicyFiles.NEVER_QUIESCENT_PATH,
                PolicyFiles.NEVER_QUIESCENT);
        return api.post("/api/v1/policies", Map.of("message", "looping", "files", looping), ADMIN);
    }

    /** The journey's three rejected uploads, each recorded as VALIDATION_FAILED. */
    private void uploadThreeRejectedRuleSets() {
        assertThat(uploadARuleSetThatDoesNotCompile().status()).isEqualTo(422);
        assertThat(uploadARuleSetThatReachesForTheSystem().status()).isEqualTo(422);
        assertThat(uploadARuleSetThatNeverReachesQuiescence().status()).isEqualTo(422);
    }

    /** The journey's good upload: v2, a candidate that reclaims silent leases after 2 minutes. */
    private Reply uploadStaleAfterTwoMinutes() {
        return api.post("/api/v1/policies", Map.of("message", "Reclaim silent leases after 2 min",
                "files", PolicyFiles.staleAfterTwoMinutes()), ADMIN);
    }

    /** v2 is uploaded, activated, then rolled back: v1 is active again. */
    private void v2UploadedActivatedAndRolledBack() {
        assertThat(uploadStaleAfterTwoMinutes().status()).isEqualTo(201);
        assertThat(api.post("/api/v1/policies/2/activate", Map.of("message", "go"), ADMIN).status()).isEqualTo(200);
        assertThat(api.post("/api/v1/policies/v1/rollback", Map.of("message", "too aggressive"), ADMIN).status())
                .isEqualTo(200);
    }
}
